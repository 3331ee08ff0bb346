import { describe, expect, test } from 'vitest';
import { entityFallback } from '../../../../src/brain/intents/index.js';
import { BERLIN, intentsOf, issuesOf, ruleFile } from './helpers.js';

const LAMP = ruleFile(`
name: lamp
tool: call_service
sentences: ['(turn|switch) {state} [the] {device} (light|lamp)']
slots:
  state: { type: enum, values: { 'on': turn_on, 'off': turn_off } }
  device: { type: entity, domain: light, max_words: 3, exclude: [the, all] }
input:
  domain: light
  service: '{state}'
  target: { entity_id: '{device}' }
reply: '{device.name} ({device}, said {device.word}, a {device.domain}) is {state.word}.'
`);

describe('entity slots', () => {
  test('a match asks for one ha_entities lookup per entity slot and has no input yet', () => {
    const hit = intentsOf(LAMP).match('turn on the hall lamp', BERLIN);
    expect(hit?.lookups).toEqual([
      {
        slot: 'device',
        tool: 'home_assistant.entities',
        input: { query: 'hall', domain: 'light' },
      },
    ]);
    expect(hit?.input).toBeUndefined();
  });

  test('max_words and exclude refuse a capture like a text slot', () => {
    const set = intentsOf(LAMP);
    expect(set.match('turn on the big old dusty hall lamp', BERLIN)).toBeUndefined();
    expect(set.match('turn on all lamp', BERLIN)).toBeUndefined();
  });

  test('a resolved lookup fills {device}, {device.name}, {device.word} and {device.domain}', () => {
    const hit = intentsOf(LAMP).match('switch off hall lamp', BERLIN)!;
    const done = hit.resolve([
      { outcome: 'ok', result: { resolved: { entity_id: 'light.hall_2', name: 'Hall Lamp' } } },
    ]);
    if ('reply' in done) throw new Error(done.reply);
    expect(done.input).toEqual({
      domain: 'light',
      service: 'turn_off',
      target: { entity_id: 'light.hall_2' },
    });
    expect(done.render({ outcome: 'ok', result: { changed: true } })).toBe(
      'Hall Lamp (light.hall_2, said hall, a light) is off.',
    );
  });

  test('a result that does not say which entity is never guessed from', () => {
    const hit = intentsOf(LAMP).match('turn on the hall lamp', BERLIN)!;
    for (const result of [null, 'light.hall', { resolved: { name: 'Hall' } }, { matches: 'x' }]) {
      const done = hit.resolve([{ outcome: 'ok', result }]);
      expect(done).toEqual({ reply: 'I couldn\'t find a light called "hall" in Home Assistant.' });
    }
  });

  test('several candidates are named, five at most, with how many more', () => {
    const hit = intentsOf(LAMP).match('turn on the hall lamp', BERLIN)!;
    const matches = Array.from({ length: 7 }, (_, i) => ({
      entity_id: `light.hall_${i}`,
      name: `Hall ${i}`,
    }));
    const done = hit.resolve([{ outcome: 'ok', result: { matches, resolved: null } }]);
    expect(done).toEqual({
      reply:
        'Which light do you mean by "hall": Hall 0 (light.hall_0), Hall 1 (light.hall_1), Hall 2 (light.hall_2), Hall 3 (light.hall_3), Hall 4 (light.hall_4) or 2 more? Say it with the full name.',
    });
  });

  test('a denied lookup ends the turn with the policy reason', () => {
    const hit = intentsOf(LAMP).match('turn on the hall lamp', BERLIN)!;
    const reason = "tool 'ha_entities' is not listed in policy.yaml";
    expect(hit.resolve([{ outcome: 'denied', reason }])).toEqual({
      reply: `I couldn't look up the light "hall" in Home Assistant: ${reason}`,
    });
  });

  test.each([
    ['no domain', 'device: { type: entity }', /domain/],
    ['a bad domain', 'device: { type: entity, domain: Light }', /Home Assistant domain/],
    ['a default', 'device: { type: entity, domain: light, default: hall }', /default/],
  ])('%s is refused when the file loads', (_what, slot, message) => {
    const yaml = ruleFile(`
name: lamp
tool: call_service
sentences: ['turn on [the] {device} lamp']
slots:
  ${slot}
input: { target: { entity_id: '{device}' } }
reply: ok
`);
    expect(JSON.stringify(issuesOf(yaml))).toMatch(message);
  });

  test('{device.start} is not a property of an entity slot', () => {
    const yaml = ruleFile(`
name: lamp
tool: call_service
sentences: ['turn on [the] {device} lamp']
slots:
  device: { type: entity, domain: light }
reply: '{device.start}'
`);
    expect(issuesOf(yaml)[0]?.message).toContain('an entity slot offers');
  });
});

describe('the unchanged reply', () => {
  const RULE = ruleFile(`
name: lamp
tool: call_service
sentences: ['lamp on']
reply: Done.
`);

  test('an ok call whose result says changed: false gets the unchanged default, not ok', () => {
    const hit = intentsOf(RULE).match('lamp on', BERLIN)!;
    expect(hit.render({ outcome: 'ok', result: { changed: true } })).toBe('Done.');
    expect(hit.render({ outcome: 'ok', result: {} })).toBe('Done.');
    expect(
      hit.render({ outcome: 'ok', result: { changed: false, summary: 'Lamp stayed off.' } }),
    ).toBe('call_service ran, but nothing changed: Lamp stayed off.');
  });

  test('a rule may word it itself', () => {
    const yaml = RULE.replace(
      'reply: Done.',
      "reply: Done.\n    replies: { unchanged: 'Nope: {result.summary}' }",
    );
    const hit = intentsOf(yaml).match('lamp on', BERLIN)!;
    expect(hit.render({ outcome: 'ok', result: { changed: false, summary: 'still off' } })).toBe(
      'Nope: still off',
    );
  });
});

describe('the not_configured reply', () => {
  test('a call that failed with not_configured says what to set, not just that it failed', () => {
    const hit = intentsOf(
      ruleFile(`
name: search
tool: web_search
sentences: ['search for {q}']
slots: { q: { type: text } }
input: { query: '{q}' }
reply: ok
`),
    ).match('search for nats', BERLIN)!;
    const message =
      'web_search is not configured: set CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL (tools.web_search.searxng_url)';
    expect(hit.render({ outcome: 'failed', error: { code: 'not_configured', message } })).toBe(
      `web_search is not set up yet: ${message}`,
    );
    expect(
      hit.render({ outcome: 'failed', error: { code: 'backend_error', message: 'boom' } }),
    ).toBe('web_search failed: boom');
  });
});

describe("entityFallback: the policy's own list when ha_entities is not granted", () => {
  const IDS = [
    'light.hall_left',
    'light.hall_right',
    'light.kitchen',
    'light.kitchen_ceiling',
    'switch.kitchen',
  ];
  const ports = (outcome: string) => ({
    explain: () => ({ decision: { outcome } }),
    namedEntities: () => IDS,
  });
  const lookup = (query: string) => ({ tool: 'ha_entities', input: { query, domain: 'light' } });

  test.each(['allow', 'confirm', 'rate_limited'])(
    'a lookup the policy judges %s goes to the tool',
    (o) => {
      expect(entityFallback(ports(o))(lookup('kitchen'))).toBeUndefined();
    },
  );

  test('another tool, or an input the gate cannot judge, goes through the gate', () => {
    expect(entityFallback(ports('deny'))({ tool: 'web_search', input: {} })).toBeUndefined();
    const throwing = {
      explain: () => {
        throw new Error('invalid_input');
      },
      namedEntities: () => IDS,
    };
    expect(entityFallback(throwing)(lookup('kitchen'))).toBeUndefined();
  });

  test.each<[string, object]>([
    ['kitchen', { resolved: { entity_id: 'light.kitchen', name: 'light.kitchen' } }],
    [
      'Kitchen Ceiling',
      { resolved: { entity_id: 'light.kitchen_ceiling', name: 'light.kitchen_ceiling' } },
    ],
    ['hall', { matches: [{ entity_id: 'light.hall_left' }, { entity_id: 'light.hall_right' }] }],
    ['attic', { matches: [] }],
  ])('a denied lookup of %j is answered from the ids of its domain', (query, expected) => {
    const out = entityFallback(ports('deny'))(lookup(query));
    expect(out).toMatchObject({ outcome: 'ok', result: { ...expected, from_policy: true } });
  });
});
