import { beforeAll, describe, expect, test } from 'vitest';
import { loadIntents, type IntentSet } from '../../../src/brain/intents/index.js';
import { CallServiceInputSchema } from '../../../src/policy/index.js';
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
    // devices
    ['turn on the kitchen light', 'light_on_off', light('turn_on', 'light.kitchen')],
    ['Turn off the Living Room lights.', 'light_on_off', light('turn_off', 'light.living_room')],
    ['switch on kitchen lamp', 'light_on_off', light('turn_on', 'light.kitchen')],
    ['turn the porch light off', 'light_on_off', light('turn_off', 'light.porch')],
    ['turn on the Küche light', 'light_on_off', light('turn_on', 'light.kuche')],
    [
      'set the kitchen light to 40%',
      'light_brightness',
      { ...light('turn_on', 'light.kitchen'), data: { brightness_pct: 40 } },
    ],
    [
      'dim the bedroom lights to 5 percent',
      'light_brightness',
      { ...light('turn_on', 'light.bedroom'), data: { brightness_pct: 5 } },
    ],
    [
      'turn off the coffee machine switch',
      'switch_on_off',
      { domain: 'switch', service: 'turn_off', target: { entity_id: 'switch.coffee_machine' } },
    ],
    [
      'turn on the bedroom fan',
      'fan_on_off',
      { domain: 'fan', service: 'turn_on', target: { entity_id: 'fan.bedroom' } },
    ],
  ])('%j -> %s', (message, intent, input) => {
    const hit = shipped.match(message, BERLIN);
    expect(hit?.intent).toBe(intent);
    expect(hit?.input).toEqual(input);
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
      expect(hit?.tool).toBe('call_service');
      expect(CallServiceInputSchema.safeParse(hit?.input).success).toBe(true);
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
      { events: [{ summary: 'Dentist' }, { summary: 'Gym' }] },
      'Your calendar for today: Dentist, Gym.',
    ],
    ['what is on my calendar this week', { events: [] }, 'Your calendar for this week: nothing.'],
    [
      'search for cats',
      { results: [{ title: 'Cat - Wikipedia', url: 'https://en.wikipedia.org/wiki/Cat' }] },
      'Top results for cats: Cat - Wikipedia.',
    ],
    ['turn on the kitchen light', {}, 'Done: kitchen light on.'],
    ['set the kitchen light to 40%', {}, 'Done: kitchen light set to 40%.'],
  ])('%j replies on ok with its result', (message, result, reply) => {
    expect(shipped.match(message, BERLIN)?.render({ outcome: 'ok', result })).toBe(reply);
  });

  test('the calculator rule words its own failure', () => {
    const hit = shipped.match('what is 1/0', BERLIN)!;
    const error = { code: 'invalid_input', message: 'the result is not a finite number' };
    expect(hit.render({ outcome: 'failed', error })).toBe(
      "I couldn't calculate 1/0: the result is not a finite number",
    );
  });
});
