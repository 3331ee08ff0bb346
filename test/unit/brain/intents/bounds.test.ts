import fc from 'fast-check';
import { beforeAll, describe, expect, test } from 'vitest';
import { loadIntents } from '../../../../src/brain/intents/index.js';
import { INTENT_OUTCOMES, MAX_REPLY_CHARS } from '../../../../src/brain/intents/reply.js';
import { MAX_MESSAGE_CHARS } from '../../../../src/brain/intents/matcher.js';
import type { IntentSet } from '../../../../src/brain/intents/intent-set.js';
import { BERLIN, SHIPPED_FILE, intentsOf, issuesOf, ruleFile } from './helpers.js';

let shipped: IntentSet;
beforeAll(async () => {
  shipped = await loadIntents(SHIPPED_FILE);
});

/** Words the shipped sentences use, so random messages get deep into the matcher. */
const VOCABULARY = (
  "what's what is on my calendar today this week search for the web look up turn switch on " +
  'off light lights fan set to 50% percent 17 * 23 sqrt(2) km miles convert how much do i have ' +
  'agenda tomorrow show me kitchen all ? . ! , ’'
).split(' ');
const wordy = fc
  .array(fc.constantFrom(...VOCABULARY), { maxLength: 40 })
  .map((words) => words.join(' '));

/**
 * A rule built to make a backtracking regex matcher explode: free-text slots separated by a
 * word the message repeats, optional words everywhere, and a last word that never comes.
 */
const PATHOLOGICAL = intentsOf(
  ruleFile(`
name: trap
tool: t
sentences:
  - "[x] {a} x [x] {b} x [x] {c} x [x] {d} x [x] {e} x [x] {f} end"
  - "(x|x x) [x] {a} x [x [x]] {b} x {c} x {d} x {e} x {f} x [end]"
slots:
  a: { type: text }
  b: { type: text }
  c: { type: text }
  d: { type: text }
  e: { type: text }
  f: { type: text }
reply: ok
`),
);

describe('matching is bounded', () => {
  test('a 100 KB message matches nothing, at once, without an error', () => {
    const message = `what is ${'1 + '.repeat(25_000)}1`;
    expect(message.length).toBeGreaterThan(100_000);
    shipped.match('warm up the time zone data', BERLIN);
    const started = performance.now();
    expect(shipped.match(message, BERLIN)).toBeUndefined();
    // The length is checked before anything else: no work grows with the message.
    expect(performance.now() - started).toBeLessThan(250);
  });

  test('the cap is on characters: at the cap a message matches, one past it does not', () => {
    const expression = `1111${' + 1'.repeat(497)}`;
    const atCap = `what is ${expression}`;
    expect(atCap.length).toBe(MAX_MESSAGE_CHARS);
    expect(shipped.match(atCap, BERLIN)?.intent).toBe('calculate');
    expect(shipped.match(`${atCap}!`, BERLIN)).toBeUndefined();
  });

  test('a rule designed to backtrack answers a 1000-word message quickly', () => {
    const miss = `${'x '.repeat(999)}y`;
    const started = performance.now();
    expect(PATHOLOGICAL.match(miss, BERLIN)).toBeUndefined();
    expect(PATHOLOGICAL.match(`${'x '.repeat(999)}x`, BERLIN)?.intent).toBe('trap');
    expect(PATHOLOGICAL.match(`${'x a '.repeat(450)}x end`, BERLIN)?.intent).toBe('trap');
    // A backtracking regex takes minutes on these; the matcher is linear per reading.
    expect(performance.now() - started).toBeLessThan(2000);
  });

  test('a file whose sentences expand past 2000 readings is refused', () => {
    const sentence = '"go [a {a}] [b {b}] [c {c}] [d {d}] [e {e}] [f {f}] end"';
    const slots = ['a', 'b', 'c', 'd', 'e', 'f'].map((k) => `${k}: { type: number, default: 1 }`);
    const rules = Array.from({ length: 32 }, (_, i) =>
      ruleFile(
        `name: r${i}\ntool: t\nsentences: [${sentence}]\nslots: { ${slots.join(', ')} }\nreply: ok`,
      )
        .split('\n')
        .slice(2)
        .join('\n'),
    );
    const issues = issuesOf(`version: 1\nintents:\n${rules.join('\n')}`);
    expect(issues).toContainEqual(
      expect.objectContaining({
        message: "the file's sentences expand to more than 2000 readings",
      }),
    );
  });
});

describe('properties', () => {
  test('match never throws on arbitrary strings, and any input it builds is JSON', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 300 }), wordy), (message) => {
        const hit = shipped.match(message, BERLIN);
        if (hit === undefined) return;
        // the input is complete, or waits for lookups (an entity slot not known yet)
        expect(hit.input !== undefined || hit.lookups.length > 0).toBe(true);
        for (const value of [hit.input, ...hit.lookups.map((l) => l.input)]) {
          if (value !== undefined) expect(JSON.parse(JSON.stringify(value))).toEqual(value);
        }
      }),
      // found by a CI run: a hit that waits for a lookup has no input yet
      { numRuns: 2000, examples: [["switch what's lights on"]] },
    );
  });

  test('render never throws and stays under the cap, whatever the outcome carries', () => {
    const hits = [
      'what is 17 * 23',
      'turn on the kitchen light',
      'what is on my calendar today',
    ].map((m) => shipped.match(m, BERLIN)!);
    fc.assert(
      fc.property(
        fc.constantFrom(...hits),
        fc.constantFrom(...INTENT_OUTCOMES),
        fc.anything(),
        fc.option(fc.string()),
        (hit, outcome, result, reason) => {
          const reply = hit.render({ outcome, result, reason: reason ?? undefined });
          expect(typeof reply).toBe('string');
          expect(reply.length).toBeLessThanOrEqual(MAX_REPLY_CHARS);
        },
      ),
    );
  });

  test('"what is a * b" always hands the calculator exactly "a * b"', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.constantFrom('?', '', '.', '!'), (a, b, end) => {
        const hit = shipped.match(`What is ${a} * ${b}${end}`, BERLIN);
        expect(hit?.input).toEqual({ expression: `${a} * ${b}` });
      }),
    );
  });

  test('"search for <query>" hands the search tool the query as typed', () => {
    const query = fc
      .array(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9'-]{0,9}$/), { minLength: 1, maxLength: 8 })
      .map((words) => words.join(' '));
    fc.assert(
      fc.property(query, (q) => {
        expect(shipped.match(`search for ${q}`, BERLIN)?.input).toEqual({ query: q });
      }),
    );
  });
});
