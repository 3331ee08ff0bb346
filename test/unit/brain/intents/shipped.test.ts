import { beforeAll, describe, expect, test } from 'vitest';
import { loadIntents } from '../../../../src/brain/intents/index.js';
import type { IntentSet } from '../../../../src/brain/intents/intent-set.js';
import { CallServiceInputSchema } from '../../../../src/protocol/index.js';
import { BERLIN, SHIPPED_FILE } from './helpers.js';

let shipped: IntentSet;
beforeAll(async () => {
  shipped = await loadIntents(SHIPPED_FILE);
});

const TODAY = { start: '2026-03-29T00:00:00+01:00', end: '2026-03-30T00:00:00+02:00' };
const TOMORROW = { start: '2026-03-30T00:00:00+02:00', end: '2026-03-31T00:00:00+02:00' };
const THIS_WEEK = { start: '2026-03-23T00:00:00+01:00', end: '2026-03-30T00:00:00+02:00' };
const light = (service: string, entity: string) => ({
  domain: 'light',
  service,
  target: { entity_id: entity },
});

/** What ha_entities answers when one entity matches. */
const found = (entityId: string, name: string) => ({
  outcome: 'ok' as const,
  result: {
    matches: [{ entity_id: entityId, name }],
    resolved: { entity_id: entityId, name },
    ambiguous: false,
    total: 1,
  },
});

/** Matches, checks the one lookup (words and domain), and fills it with `entityId`. */
function matchDevice(message: string, words: string, entityId: string) {
  const hit = shipped.match(message, BERLIN);
  expect(hit?.input).toBeUndefined();
  expect(hit?.lookups).toEqual([
    {
      slot: 'device',
      tool: 'home_assistant.entities',
      input: { query: words, domain: entityId.split('.')[0] },
    },
  ]);
  const done = hit!.resolve([found(entityId, words)]);
  if ('reply' in done) throw new Error(`unexpected reply: ${done.reply}`);
  expect(done.lookups).toEqual([]);
  return done;
}

describe('the shipped config/intents.yaml', () => {
  test.each<[string, string, unknown]>([
    // arithmetic
    ['what is 17 * 23', 'calculate', { expression: '17 * 23' }],
    ['What is 17*23?', 'calculate', { expression: '17*23' }],
    ["what's 2^10", 'calculate', { expression: '2^10' }],
    ['What’s 2^10?', 'calculate', { expression: '2^10' }],
    ['whats 2 ^ 10 !', 'calculate', { expression: '2 ^ 10' }],
    ['calculate sqrt(2)', 'calculate', { expression: 'sqrt(2)' }],
    ['CALCULATE   sqrt(2).', 'calculate', { expression: 'sqrt(2)' }],
    ['convert 5 km to miles', 'calculate', { expression: '5 km to miles' }],
    ['convert 100 degF into degC', 'calculate', { expression: '100 degF to degC' }],
    ['how much is 5 times 3?', 'calculate', { expression: '5 * 3' }],
    ['what is 20% of 80', 'calculate', { expression: '20% * 80' }],
    ['what is 3 x 4', 'calculate', { expression: '3 * 4' }],
    ['what is 12 ÷ 4', 'calculate', { expression: '12 / 4' }],
    ['what is pi', 'calculate', { expression: 'pi' }],
    ['compute log(100, 10)', 'calculate', { expression: 'log(100, 10)' }],
    // calendar
    ['what is on my calendar today', 'calendar_agenda', TODAY],
    ["What's on my calendar tomorrow?", 'calendar_agenda', TOMORROW],
    ['whats on my agenda this week', 'calendar_agenda', THIS_WEEK],
    ["what's on my calendar", 'calendar_agenda', TODAY],
    ['What do I have today?', 'calendar_agenda', TODAY],
    ['agenda for tomorrow', 'calendar_agenda', TOMORROW],
    ['show me my schedule for this week', 'calendar_agenda', THIS_WEEK],
    ["what's on tomorrow", 'calendar_agenda', TOMORROW],
    ['do I have anything on tomorrow', 'calendar_agenda', TOMORROW],
    // search
    ['search for cats', 'web_search', { query: 'cats' }],
    ['Search the web for Rust lifetimes?', 'web_search', { query: 'Rust lifetimes' }],
    ['search online for what is 17 * 23', 'web_search', { query: 'what is 17 * 23' }],
    ['look up the ISS orbit height', 'web_search', { query: 'the ISS orbit height' }],
    ['search rome weather', 'web_search', { query: 'rome weather' }],
  ])('%j -> %s', (message, intent, input) => {
    const hit = shipped.match(message, BERLIN);
    expect(hit?.intent).toBe(intent);
    expect(hit?.lookups).toEqual([]);
    expect(hit?.input).toEqual(input);
  });

  test.each<[string, string, string, string, unknown]>([
    [
      'turn on the kitchen light',
      'light_on_off',
      'kitchen',
      'light.kitchen',
      light('turn_on', 'light.kitchen'),
    ],
    [
      'Turn off the Living Room lights.',
      'light_on_off',
      'Living Room',
      'light.living_room',
      light('turn_off', 'light.living_room'),
    ],
    [
      'switch on kitchen lamp',
      'light_on_off',
      'kitchen',
      'light.kitchen',
      light('turn_on', 'light.kitchen'),
    ],
    [
      'turn the porch light off',
      'light_on_off',
      'porch',
      'light.porch_1',
      light('turn_off', 'light.porch_1'),
    ],
    [
      'turn on the Küche light',
      'light_on_off',
      'Küche',
      'light.kuche',
      light('turn_on', 'light.kuche'),
    ],
    [
      'set the kitchen light to 40%',
      'light_brightness',
      'kitchen',
      'light.kitchen',
      { ...light('turn_on', 'light.kitchen'), data: { brightness_pct: 40 } },
    ],
    [
      'dim the bedroom lights to 5 percent',
      'light_brightness',
      'bedroom',
      'light.bed',
      { ...light('turn_on', 'light.bed'), data: { brightness_pct: 5 } },
    ],
    [
      'turn off the coffee machine switch',
      'switch_on_off',
      'coffee machine',
      'switch.coffee_machine',
      { domain: 'switch', service: 'turn_off', target: { entity_id: 'switch.coffee_machine' } },
    ],
    [
      'turn on the bedroom fan',
      'fan_on_off',
      'bedroom',
      'fan.bedroom',
      { domain: 'fan', service: 'turn_on', target: { entity_id: 'fan.bedroom' } },
    ],
  ])('%j -> %s after looking up %j as %s', (message, intent, words, entityId, input) => {
    const done = matchDevice(message, words, entityId);
    expect(done.intent).toBe(intent);
    expect(done.input).toEqual(input);
  });

  test('an ambiguous name gets a question back, not a guess', () => {
    const hit = shipped.match('turn on the kitchen light', BERLIN)!;
    const matches = [
      { entity_id: 'light.kitchen_ceiling', name: 'Kitchen Ceiling' },
      { entity_id: 'light.kitchen_counter', name: 'Kitchen Counter' },
    ];
    const answer = hit.resolve([
      { outcome: 'ok', result: { matches, resolved: null, ambiguous: true, total: 2 } },
    ]);
    expect(answer).toEqual({
      reply:
        'Which light do you mean by "kitchen": Kitchen Ceiling (light.kitchen_ceiling) or Kitchen Counter (light.kitchen_counter)? Say it with the full name.',
    });
  });

  test('an unknown name and a lookup that could not run say so', () => {
    const hit = shipped.match('turn on the attic light', BERLIN)!;
    const none = { matches: [], resolved: null, ambiguous: false, total: 0 };
    expect(hit.resolve([{ outcome: 'ok', result: none }])).toEqual({
      reply: 'I couldn\'t find a light called "attic" in Home Assistant.',
    });
    const reason = 'ha_entities is not configured: set CAESAR_HA__URL (ha.url)';
    expect(hit.resolve([{ outcome: 'failed', reason }])).toEqual({
      reply: `I couldn't look up the light "attic" in Home Assistant: ${reason}`,
    });
    expect(hit.resolve([])).toEqual({ reply: 'I couldn\'t look up the light "attic".' });
  });

  test.each([
    'what is the weather',
    'what is the weather today',
    'tell me a joke',
    'what is love',
    'what is the capital of France',
    'how much is the fish',
    'turn on the light',
    'turn off all the lights',
    'set the kitchen light to 120%',
    'convert dollars to euros',
    'search',
    'what is',
    '',
    '   ?!',
    'please turn on the kitchen light and make coffee and play music now',
  ])('%j matches no rule', (message) => {
    expect(shipped.match(message, BERLIN)).toBeUndefined();
  });

  test('every rule example is matched by its own rule', () => {
    const withExamples = shipped.intents.filter((i) => i.example !== undefined);
    expect(withExamples.length).toBeGreaterThanOrEqual(4);
    for (const { name, example } of withExamples) {
      expect(shipped.match(example!, BERLIN)?.intent, example).toBe(name);
    }
  });

  test('device rules build inputs the call_service schema accepts', () => {
    for (const message of [
      'turn on the hall light',
      'set the hall lamp to 10',
      'turn off the x fan',
    ]) {
      const hit = shipped.match(message, BERLIN);
      expect(hit?.tool).toBe('home_assistant.call_service');
      const done = hit!.resolve([found('light.x', 'X')]);
      expect('reply' in done).toBe(false);
      expect(CallServiceInputSchema.safeParse((done as typeof hit)?.input).success).toBe(true);
    }
  });

  test('describe lists each capability once, with an example', () => {
    expect(shipped.describe()).toEqual([
      "read your calendar (e.g. 'what's on my calendar today')",
      "do arithmetic and unit conversions (e.g. 'what is 17 * 23')",
      "search the web (e.g. 'search for the ISS orbit height')",
      "switch lights, switches and fans on and off (e.g. 'turn on the kitchen light')",
      "dim lights (e.g. 'set the kitchen light to 40%')",
    ]);
  });

  test.each<[string, unknown, string]>([
    ['what is 17 * 23', { expression: '17 * 23', result: '391', value: 391 }, '17 * 23 = 391'],
    [
      'what is on my calendar today',
      {
        events: [
          {
            summary: 'Dentist',
            start: '2026-03-29T09:00:00+01:00',
            end: '2026-03-29T09:30:00+01:00',
            all_day: false,
          },
          {
            summary: 'Gym',
            start: '2026-03-29T18:00:00+02:00',
            end: '2026-03-29T19:00:00+02:00',
            all_day: false,
            location: 'Gym Nord',
          },
          { summary: 'Holiday', start: '2026-03-29', end: '2026-03-30', all_day: true },
        ],
      },
      'Your calendar for today:\n- 09:00–09:30 Dentist\n- 18:00–19:00 Gym (Gym Nord)\n- all day: Holiday',
    ],
    [
      'what is on my calendar this week',
      {
        events: [
          { summary: 'Trip', start: '2026-03-24', end: '2026-03-27', all_day: true },
          {
            summary: 'Call',
            start: '2026-03-26T17:00:00+01:00',
            end: '2026-03-26T17:30:00+01:00',
            all_day: false,
          },
        ],
      },
      'Your calendar for this week:\n- Tue 24 Mar all day until Thu 26 Mar: Trip\n- Thu 26 Mar 17:00–17:30 Call',
    ],
    [
      'what is on my calendar this week',
      { events: [] },
      'Your calendar for this week: nothing on it.',
    ],
    [
      'search for cats',
      {
        backend: 'searxng',
        results: [
          {
            title: 'Cat - Wikipedia',
            url: 'https://en.wikipedia.org/wiki/Cat',
            domain: 'en.wikipedia.org',
          },
          { title: 'Cats', url: 'https://www.cats.example/' },
        ],
      },
      'Top results for cats (from searxng):\n- Cat - Wikipedia (en.wikipedia.org)\n- Cats (cats.example)',
    ],
    [
      'search for cats',
      { backend: 'brave', results: [] },
      'Top results for cats (from brave): nothing found.',
    ],
  ])('%j replies on ok with its result', (message, result, reply) => {
    expect(shipped.match(message, BERLIN)?.render({ outcome: 'ok', result })).toBe(reply);
  });

  test.each<[string, unknown, string]>([
    [
      'turn on the kitchen light',
      { changed: true, summary: 'Kitchen: off -> on.' },
      'Done: Kitchen is on.',
    ],
    [
      'turn on the kitchen light',
      { changed: false, summary: 'Kitchen stayed off.' },
      'I asked Home Assistant to switch Kitchen on, but Kitchen stayed off.',
    ],
    ['set the kitchen light to 40%', { changed: true }, 'Done: Kitchen set to 40%.'],
    [
      'turn off the coffee machine switch',
      { changed: false, summary: 'Kitchen was already off.' },
      'I asked Home Assistant to switch Kitchen off, but Kitchen was already off.',
    ],
  ])('%j words the post-condition %j', (message, result, reply) => {
    const done = shipped.match(message, BERLIN)!.resolve([found('light.kitchen', 'Kitchen')]);
    if ('reply' in done) throw new Error(done.reply);
    expect(done.render({ outcome: 'ok', result })).toBe(reply);
  });

  test('the calculator rule words its own failure', () => {
    const hit = shipped.match('what is 1/0', BERLIN)!;
    const error = { code: 'invalid_input', message: 'the result is not a finite number' };
    expect(hit.render({ outcome: 'failed', error })).toBe(
      "I couldn't calculate 1/0: the result is not a finite number",
    );
  });
});
