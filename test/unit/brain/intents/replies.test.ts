import { describe, expect, test } from 'vitest';
import {
  DEFAULT_REPLIES,
  INTENT_OUTCOMES,
  MAX_REPLY_CHARS,
  type IntentOutcome,
} from '../../../../src/brain/intents/reply.js';
import type { IntentMatch } from '../../../../src/brain/intents/intent-set.js';
import { CALL_OUTCOMES } from '../../../../src/brain/api/index.js';
import { BERLIN, intentsOf, ruleFile } from './helpers.js';

const set = intentsOf(
  `${ruleFile(`
name: calc
tool: calculator
sentences: ["what is {expression}"]
slots: { expression: { type: expression } }
input: { expression: "{expression}" }
reply: "{expression} = {result.result}"
`)}${ruleFile(`
name: lamp
tool: call_service
sentences: ["lamp {state} [in] {room}"]
slots:
  state: { type: enum, values: { "on": turn_on, "off": turn_off } }
  room: { type: text }
input: { domain: light, service: "{state}", target: { entity_id: "light.{room|slug}" } }
reply: "{room|lower} {state.word}; {outcome} via {tool} ({intent}); {result.missing}|{result.missing|or:none}"
replies:
  denied: "Nope for {room}: {reason}"
  confirmation_required: "Ask first: {confirmation.id}"
`)
    .split('\n')
    .slice(2)
    .join('\n')}`,
);

const calc = (): IntentMatch => set.match('what is 17 * 23', BERLIN)!;
const lamp = (): IntentMatch => set.match('lamp on in Living Room', BERLIN)!;

const CONFIRMATION = {
  id: 'c-42',
  summary: 'call_service light.turn_on on light.kitchen',
  expires_at: '2026-03-29T10:05:00.000Z',
};

describe('replies', () => {
  test('the outcome list is the brain API one', () => {
    expect([...INTENT_OUTCOMES]).toEqual([...CALL_OUTCOMES]);
  });

  test.each<[string, IntentOutcome, string]>([
    ['ok', { outcome: 'ok', result: { result: '391' } }, '17 * 23 = 391'],
    [
      'failed with an error',
      { outcome: 'failed', error: { code: 'no_worker', message: 'no calculator is connected' } },
      'calculator failed: no calculator is connected',
    ],
    [
      'failed with a reason and an error: the reason wins',
      {
        outcome: 'failed',
        reason: 'audit log unavailable',
        error: { code: 'internal', message: 'x' },
      },
      'calculator failed: audit log unavailable',
    ],
    ['failed with nothing', { outcome: 'failed' }, 'calculator failed: no details given'],
    [
      'denied',
      { outcome: 'denied', reason: "tool 'calculator' is not allowed (policy.yaml)" },
      "I'm not allowed to use calculator: tool 'calculator' is not allowed (policy.yaml)",
    ],
    [
      'denied without a reason',
      { outcome: 'denied' },
      "I'm not allowed to use calculator: the policy does not allow it",
    ],
    [
      'rate_limited',
      { outcome: 'rate_limited', reason: 'at most 5 calls per 1m' },
      "I can't use calculator right now: at most 5 calls per 1m. Try again in a moment.",
    ],
    [
      'confirmation_required',
      { outcome: 'confirmation_required', confirmation: CONFIRMATION },
      'This needs your approval: call_service light.turn_on on light.kitchen. Confirm with ' +
        '`caesar confirm c-42` (expires 2026-03-29T10:05:00.000Z).',
    ],
    [
      'rejected',
      { outcome: 'rejected', reason: 'the confirmation expired' },
      'calculator was not run: the confirmation expired',
    ],
    [
      'rejected without a reason',
      { outcome: 'rejected' },
      'calculator was not run: the call was rejected',
    ],
  ])('built-in reply: %s', (_what, outcome, reply) => {
    expect(calc().render(outcome)).toBe(reply);
  });

  test('a default reply exists for every outcome but ok', () => {
    expect(Object.keys(DEFAULT_REPLIES).sort()).toEqual(
      [...INTENT_OUTCOMES.filter((o) => o !== 'ok'), 'unchanged', 'not_configured'].sort(),
    );
  });

  test('a rule overrides the outcomes it names and keeps the defaults for the rest', () => {
    const hit = lamp();
    expect(hit.render({ outcome: 'denied', reason: 'light.living_room is not listed' })).toBe(
      'Nope for Living Room: light.living_room is not listed',
    );
    expect(hit.render({ outcome: 'confirmation_required', confirmation: CONFIRMATION })).toBe(
      'Ask first: c-42',
    );
    expect(hit.render({ outcome: 'rate_limited' })).toBe(
      "I can't use call_service right now: it is over its rate limit. Try again in a moment.",
    );
  });

  test('a reply reads slots, their spoken words and the call; a missing path is empty', () => {
    expect(lamp().render({ outcome: 'ok', result: {} })).toBe(
      'living room on; ok via call_service (lamp); |none',
    );
  });

  test('an unknown outcome is answered as failed', () => {
    const odd = { outcome: 'exploded' } as unknown as IntentOutcome;
    expect(calc().render(odd)).toBe('calculator failed: no details given');
  });

  test.each<[string, unknown, string]>([
    ['a number', { result: 42 }, '17 * 23 = 42'],
    ['a list of text', { result: ['a', 'b'] }, '17 * 23 = a, b'],
    ['a list of objects', { result: [{ a: 1 }] }, '17 * 23 = {"a":1}'],
    ['an object', { result: { a: [1, 2] } }, '17 * 23 = {"a":[1,2]}'],
    ['null', { result: null }, '17 * 23 = '],
    ['an inherited property', Object.create({ result: 'inherited' }) as unknown, '17 * 23 = '],
    ['no result at all', undefined, '17 * 23 = '],
  ])('a result value that is %s renders as text', (_what, result, reply) => {
    expect(calc().render({ outcome: 'ok', result })).toBe(reply);
  });

  test('a long result is cut and the reply stays under the cap', () => {
    const reply = calc().render({ outcome: 'ok', result: { result: 'x'.repeat(100_000) } });
    expect(reply.length).toBeLessThanOrEqual(MAX_REPLY_CHARS);
    expect(reply.endsWith('…')).toBe(true);
  });

  test('a reply never throws: cyclic results, throwing getters, bigints', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.result = cyclic;
    const getter = {
      get result(): string {
        throw new Error('boom');
      },
    };
    for (const result of [cyclic, getter, { result: 10n }, { result: Symbol('s') }]) {
      expect(typeof calc().render({ outcome: 'ok', result })).toBe('string');
    }
    expect(calc().render({ outcome: 'ok', result: { result: 10n } })).toBe('17 * 23 = 10');
    expect(calc().render({ outcome: 'ok', result: getter })).toBe('17 * 23 = ');
    expect(calc().render({ outcome: 'ok', result: cyclic })).toBe('17 * 23 = ');
  });
});

describe('placeholders and filters', () => {
  const one = (reply: string, result: unknown, message = 'show kitchen lamp') =>
    intentsOf(
      ruleFile(`
name: t
tool: t
sentences: ["show {name}"]
slots: { name: { type: text } }
input: {}
reply: ${JSON.stringify(reply)}
`),
    )
      .match(message, BERLIN)!
      .render({ outcome: 'ok', result });

  test.each<[string, unknown, string]>([
    ['{name|slug}', {}, 'kitchen_lamp'],
    ['{name|lower}', {}, 'kitchen lamp'],
    ['{name|json}', {}, '"kitchen lamp"'],
    ['{result.items|count}', { items: [1, 2, 3] }, '3'],
    ['{result.items|count}', {}, '0'],
    ['{result.items.*.title}', { items: [{ title: 'a' }, { x: 1 }, { title: 'b' }] }, 'a, b'],
    ['{result.items.1.title}', { items: [{ title: 'a' }, { title: 'b' }] }, 'b'],
    ['{result.items.*.title|or:none}', { items: [] }, 'none'],
    ['{result.items.*.title|count}', { items: [{ title: 'a' }, { title: 'b' }] }, '2'],
    ['{result|json}', { a: 1 }, '{"a":1}'],
    ['{{literal}} {name}', {}, '{literal} kitchen lamp'],
  ])('%s renders %j as %j', (reply, result, text) => {
    expect(one(reply, result)).toBe(text);
  });

  test.each<[string, string]>([
    ['Küche Decke', 'kuche_decke'],
    ['  Living   Room!! ', 'living_room'],
    ["kid's room #2", 'kid_s_room_2'],
    ['ÆØÅ', 'a'],
  ])('slug of %j is %j', (name, slug) => {
    expect(one('{name|slug}', {}, `show ${name}`)).toBe(slug);
  });

  test('a `*` path reads at most 50 items', () => {
    const items = Array.from({ length: 200 }, (_, i) => ({ n: i }));
    expect(one('{result.items.*.n|count}', { items })).toBe('50');
  });
});
