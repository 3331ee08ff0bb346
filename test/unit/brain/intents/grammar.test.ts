import { describe, expect, test } from 'vitest';
import { BERLIN, intentsOf, ruleFile } from './helpers.js';

/** A set of one rule; `input` echoes every slot so tests can see what was captured. */
function ruleSet(sentences: string[], slots: string, input = '{}') {
  return intentsOf(
    ruleFile(`
name: r
tool: t
sentences: ${JSON.stringify(sentences)}
slots: ${slots}
input: ${input}
reply: ok
`),
  );
}

const light = ruleSet(
  ['(turn|switch) {state} [the] {name} (light|lights)', '{name} (light|lights) {state} [please]'],
  '{ state: { type: enum, values: { "on": true, "off": false, "switch on": true } }, name: { type: text } }',
  '{ on: "{state}", name: "{name}", said: "{state.word}" }',
);

describe('sentence templates', () => {
  test.each<[string, unknown]>([
    ['turn on the kitchen light', { on: true, name: 'kitchen', said: 'on' }],
    ['TURN  ON   THE Kitchen LIGHT', { on: true, name: 'Kitchen', said: 'on' }],
    ['  turn on kitchen lights?!. ', { on: true, name: 'kitchen', said: 'on' }],
    ['switch off the hall   way light', { on: false, name: 'hall   way', said: 'off' }],
    ['kitchen light off please', { on: false, name: 'kitchen', said: 'off' }],
    ['kitchen light switch on', { on: true, name: 'kitchen', said: 'switch on' }],
    ['turn on the the light', { on: true, name: 'the', said: 'on' }],
  ])('%j captures %j', (message, input) => {
    expect(light.match(message, BERLIN)?.input).toEqual(input);
  });

  test.each(['turn on the kitchen', 'turn up the kitchen light', 'turn on the kitchen light now'])(
    '%j does not match: every word must be accounted for',
    (message) => {
      expect(light.match(message, BERLIN)).toBeUndefined();
    },
  );

  test('the match names the sentence template that matched', () => {
    expect(light.match('kitchen light off', BERLIN)?.sentence).toBe(
      '{name} (light|lights) {state} [please]',
    );
  });

  test('curly apostrophes and a comma after a literal word still match', () => {
    const set = ruleSet(["what's on {day}"], '{ day: { type: text } }', '{ day: "{day}" }');
    expect(set.match('What’s on, Friday', BERLIN)?.input).toEqual({ day: 'Friday' });
  });

  test('nested groups expand into every alternative', () => {
    const set = ruleSet(
      ['[please] (what (is|was)|whats) {x}'],
      '{ x: { type: text } }',
      '{ x: "{x}" }',
    );
    for (const m of ['what is a', 'what was a', 'whats a', 'please what is a']) {
      expect(set.match(m, BERLIN)?.input, m).toEqual({ x: 'a' });
    }
    expect(set.match('what a', BERLIN)).toBeUndefined();
  });

  test('with two free-text slots the earlier takes the longer share', () => {
    const set = ruleSet(
      ['search {query} on {site}'],
      '{ query: { type: text }, site: { type: text } }',
      '{ q: "{query}", s: "{site}" }',
    );
    expect(set.match('search cats on the moon on wikipedia', BERLIN)?.input).toEqual({
      q: 'cats on the moon',
      s: 'wikipedia',
    });
  });

  test('optional words after a free-text slot go to the literal, not the slot', () => {
    const set = ruleSet(
      ['remind me to {task} [please|now]'],
      '{ task: { type: text } }',
      '{ t: "{task}" }',
    );
    expect(set.match('remind me to walk the dog please', BERLIN)?.input).toEqual({
      t: 'walk the dog',
    });
    expect(set.match('remind me to walk the dog', BERLIN)?.input).toEqual({ t: 'walk the dog' });
    expect(set.match('remind me to please', BERLIN)?.input).toEqual({ t: 'please' });
  });

  test('groups that hold slots expand into readings', () => {
    const set = ruleSet(
      ['remind me (at {time}|{when}) to {task}'],
      '{ time: { type: number, default: 9 }, when: { type: date_range, default: today }, task: { type: text } }',
      '{ time: "{time}", when: "{when}", task: "{task}" }',
    );
    expect(set.match('remind me at 7 to walk', BERLIN)?.input).toEqual({
      time: 7,
      when: 'today',
      task: 'walk',
    });
    expect(set.match('remind me tomorrow to walk', BERLIN)?.input).toEqual({
      time: 9,
      when: 'tomorrow',
      task: 'walk',
    });
  });

  test('text slots: max_words and exclude refuse a capture, and the next sentence is tried', () => {
    const set = ruleSet(
      ['open [the] {name} door', 'open {rest} now'],
      '{ name: { type: text, max_words: 2, exclude: [the, My], default: "-" }, rest: { type: text, default: "-" } }',
      '{ name: "{name}", rest: "{rest}" }',
    );
    const input = (message: string) => set.match(message, BERLIN)?.input;
    expect(input('open the garage door')).toEqual({ name: 'garage', rest: '-' });
    expect(input('open the big garage door')).toEqual({ name: 'big garage', rest: '-' });
    expect(input('open the very big garage door')).toBeUndefined();
    expect(input('open my door')).toBeUndefined();
    expect(input('open MY door now')).toEqual({ name: '-', rest: 'MY door' });
  });

  test.each<[string, unknown]>([
    ['level 50', { n: 50, text: 'level 50', word: '50' }],
    ['level 7%', { n: 7, text: 'level 7', word: '7%' }],
    ['level -2.5', undefined],
    ['level 101', undefined],
    ['level 3.5', undefined],
    ['level fifty', undefined],
  ])('number slot: %j gives %j', (message, input) => {
    const set = ruleSet(
      ['level {n}'],
      '{ n: { type: number, min: 0, max: 100, integer: true } }',
      '{ n: "{n}", text: "level {n}", word: "{n.word}" }',
    );
    expect(set.match(message, BERLIN)?.input).toEqual(input);
  });

  test('an input keeps its non-text values and a lone placeholder keeps its type', () => {
    const set = ruleSet(
      ['go {flag}'],
      '{ flag: { type: enum, values: { yes: 1, no: 0 } } }',
      '{ n: 3, b: true, z: null, list: [1, "{flag}", "x{flag}"], deep: { v: "{flag}" } }',
    );
    expect(set.match('go yes', BERLIN)?.input).toEqual({
      n: 3,
      b: true,
      z: null,
      list: [1, 1, 'x1'],
      deep: { v: 1 },
    });
  });

  test('the first matching rule in file order wins', () => {
    const set = intentsOf(
      `${ruleFile('name: first\ntool: a\nsentences: ["say {x}"]\nslots: { x: { type: text } }\nreply: a')}` +
        ruleFile('name: second\ntool: b\nsentences: ["say hello"]\nreply: b')
          .split('\n')
          .slice(2)
          .join('\n'),
    );
    expect(set.match('say hello', BERLIN)?.intent).toBe('first');
  });

  test('a rule whose slot check fails lets the next rule match', () => {
    const set = intentsOf(
      `${ruleFile('name: calc\ntool: calculator\nsentences: ["what is {e}"]\nslots: { e: { type: expression } }\nreply: a')}` +
        ruleFile(
          'name: define\ntool: web_search\nsentences: ["what is {q}"]\nslots: { q: { type: text } }\nreply: b',
        )
          .split('\n')
          .slice(2)
          .join('\n'),
    );
    expect(set.match('what is 2 + 2', BERLIN)?.intent).toBe('calc');
    expect(set.match('what is a monad', BERLIN)?.intent).toBe('define');
  });
});

describe('expression slots accept arithmetic and conversions, not prose', () => {
  const calc = ruleSet(
    ['what is {e}'],
    '{ e: { type: expression } }',
    '{ e: "{e}", said: "{e.word}" }',
  );
  test.each<[string, string | undefined]>([
    ['17 * 23', '17 * 23'],
    ['2 to the power of 10', '2 ^ 10'],
    ['3 squared', '3 ^ 2'],
    ['10 divided by 4', '10 / 4'],
    ['9 minus 3 plus 1', '9 - 3 + 1'],
    ['6 multiplied by 7', '6 * 7'],
    ['5 km in miles', '5 km in miles'],
    ['sqrt(16) + cbrt(27)', 'sqrt(16) + cbrt(27)'],
    ['sin(pi / 6)', 'sin(pi / 6)'],
    ['e', 'e'],
    ['1e3 mm to m', '1e3 mm to m'],
    ['4−1', '4-1'],
    ['the weather', undefined],
    ['the time in Tokyo', undefined],
    ['5 dollars in euros', undefined],
    ['Zürich', undefined],
    ['1 + 1 = 2', undefined],
    ['x', undefined],
  ])('%j -> %j', (text, expression) => {
    const input = calc.match(`what is ${text}`, BERLIN)?.input;
    expect(input).toEqual(expression === undefined ? undefined : { e: expression, said: text });
  });
});

describe('the docs/intents.md examples', () => {
  test('the "Adding a rule" example loads and builds the cover call', () => {
    const set = intentsOf(
      ruleFile(`
name: garage_open_close
description: open and close the garage door
example: open the garage door
tool: call_service
sentences:
  - '{action} the garage [door]'
slots:
  action: { type: enum, values: { open: open_cover, close: close_cover, shut: close_cover } }
input:
  domain: cover
  service: '{action}'
  target: { entity_id: cover.garage_door }
reply: 'Garage door: {action.word}.'
`),
    );
    const hit = set.match('Shut the garage.', BERLIN);
    expect(hit?.input).toEqual({
      domain: 'cover',
      service: 'close_cover',
      target: { entity_id: 'cover.garage_door' },
    });
    expect(hit?.render({ outcome: 'ok' })).toBe('Garage door: shut.');
  });
});
