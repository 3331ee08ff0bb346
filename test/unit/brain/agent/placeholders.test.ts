import { describe, expect, test } from 'vitest';
import {
  fillPlaceholders,
  MAX_FILLED_CHARS,
  MAX_PLACEHOLDERS,
  stepResultOf,
  type StepResult,
} from '../../../../src/brain/agent/placeholders.js';
import type { ToolCallReport } from '../../../../src/brain/api/index.js';

const report = (
  tool: string,
  result: unknown,
  more: Partial<ToolCallReport> = {},
): ToolCallReport => ({
  tool,
  input: {},
  outcome: 'ok',
  result,
  label: { trust: 'untrusted', private: false, sources: ['https://a.example'] },
  decision_id: `d-${tool}`,
  duration_ms: 1,
  ...more,
});

/** Steps 1..n of a plan, as the loop keeps them. */
function steps(...reports: ToolCallReport[]): Map<number, StepResult> {
  return new Map(reports.map((r, i) => [i + 1, stepResultOf(r)]));
}

const search = report('web_search', {
  results: [
    { url: 'https://a.example', title: 'A', snippet: 'lock.front_door' },
    { url: 'https://b.example', title: 'B' },
  ],
});
const entities = report(
  'ha_entities',
  { matches: [{ entity_id: 'light.kitchen', name: 'Kitchen' }] },
  { label: { trust: 'trusted', private: true } },
);

const problemOf = (input: unknown, step: number, done = steps(search, entities)) => {
  const filled = fillPlaceholders(input, step, done);
  if (filled.ok) throw new Error('expected a problem');
  return filled.problem;
};

describe('fillPlaceholders', () => {
  test('an input without placeholders is the same input, read from nothing', () => {
    const input = { query: 'pasta', nested: [{ a: 1 }, 'x', null] };
    expect(fillPlaceholders(input, 1, new Map())).toEqual({ ok: true, input, read: [], filled: 0 });
  });

  test('each placeholder takes the value its pointer names in an earlier step, anywhere in the input', () => {
    const input = {
      domain: 'light',
      target: { entity_id: { $from: 2, path: '/matches/0/entity_id' } },
      data: { urls: [{ $from: 1, path: '/results/1/url' }, 'https://c.example'] },
    };
    const filled = fillPlaceholders(input, 3, steps(search, entities));
    expect(filled).toMatchObject({
      ok: true,
      filled: 2,
      input: {
        domain: 'light',
        target: { entity_id: 'light.kitchen' },
        data: { urls: ['https://b.example', 'https://c.example'] },
      },
    });
    // the call's provenance: the results its values came from, each once, in step order
    expect(filled.ok && filled.read.map((r) => [r.tool, r.decisionId, r.label])).toEqual([
      ['web_search', 'd-web_search', search.label],
      ['ha_entities', 'd-ha_entities', entities.label],
    ]);
  });

  test('a path left out, or empty, takes the whole result; objects are copied, not shared', () => {
    const filled = fillPlaceholders(
      { all: { $from: 1 }, same: { $from: 1, path: '' } },
      2,
      steps(search),
    );
    expect(filled.ok && filled.input).toEqual({ all: search.result, same: search.result });
    const all = filled.ok ? (filled.input as { all: unknown }).all : undefined;
    expect(all).not.toBe(search.result);
  });

  test('the input itself is never changed', () => {
    const input = { q: { $from: 1, path: '/results/0/title' } };
    const before = structuredClone(input);
    fillPlaceholders(input, 2, steps(search));
    expect(input).toEqual(before);
  });

  test('a value taken from a result is data: a placeholder inside it is not filled again', () => {
    const sly = report('web_search', {
      results: [{ snippet: { $from: 1, path: '/secret' } }],
      secret: 'door code 4711',
    });
    const filled = fillPlaceholders({ q: { $from: 1, path: '/results/0/snippet' } }, 2, steps(sly));
    expect(filled.ok && filled.input).toEqual({ q: { $from: 1, path: '/secret' } });
    expect(filled.ok && filled.filled).toBe(1);
  });

  test('the excerpt texts of a filled call are those of the result it read', () => {
    const filled = fillPlaceholders({ q: { $from: 1, path: '/results/0/url' } }, 2, steps(search));
    expect(filled.ok && filled.read[0]!.texts()).toEqual(
      expect.arrayContaining(['lock.front_door', 'https://b.example']),
    );
  });

  test.each([
    [{ $from: 3 }, 3, /must name an earlier step of the plan by its number \(1 to 2\); got 3/],
    [{ $from: 5 }, 3, /by its number \(1 to 2\); got 5/],
    [{ $from: 0 }, 3, /got 0/],
    [{ $from: -1 }, 3, /got -1/],
    [{ $from: 1.5 }, 3, /got 1\.5/],
    [{ $from: '1' }, 3, /got "1"/],
    [{ $from: 'call_abc' }, 3, /got "call_abc"/],
    [{ $from: null }, 3, /got null/],
    [{ $from: 1 }, 1, /the first step of a plan can take no value: no step comes before it/],
  ])('a reference to no earlier step is refused: %j in step %i', (placeholder, step, why) => {
    expect(problemOf({ target: { entity_id: placeholder } }, step)).toMatch(why);
  });

  test('the problem names where the placeholder sits', () => {
    expect(problemOf({ target: { entity_id: [{ $from: 9 }] } }, 3)).toMatch(
      /^the placeholder at target\.entity_id\[0\] /,
    );
    expect(problemOf({ $from: 9 }, 3)).toMatch(/^the placeholder at \(root\) /);
  });

  test.each([
    [
      { $from: 1, path: '/results/5/url' },
      /step 1 \(web_search\) has nothing at \/results\/5\/url \(nothing at \/results\/5\)/,
    ],
    [{ $from: 1, path: 'results/0' }, /a JSON Pointer must be empty or start with "\/"/],
    [{ $from: 1, path: '/a~2' }, /"~" must be followed by 0 or 1/],
    [{ $from: 1, path: 7 }, /"path" must be a JSON Pointer string/],
    [
      { $from: 1, path: '/results/0', also: 'x' },
      /holds only "\$from" and "path"; this one also has "also"/,
    ],
  ])('a bad pointer or shape is refused: %j', (placeholder, why) => {
    expect(problemOf({ q: placeholder }, 3)).toMatch(why);
  });

  test.each([
    ['denied', { outcome: 'denied', result: undefined, label: undefined }],
    ['failed', { outcome: 'failed', result: undefined }],
    ['confirmation_required', { outcome: 'confirmation_required', result: undefined }],
  ] as const)('a step that ended %s has no value to give', (outcome, more) => {
    const done = steps(report('web_search', undefined, more));
    expect(problemOf({ q: { $from: 1 } }, 2, done)).toMatch(
      new RegExp(
        `step 1 \\(web_search\\) has no result to take a value from \\(outcome: ${outcome}\\)`,
      ),
    );
  });

  test('a step the plan never ran (refused, dropped) has no value either', () => {
    const done = new Map<number, StepResult>();
    expect(problemOf({ q: { $from: 1 } }, 2, done)).toMatch(
      /step 1 did not run, so it has no result/,
    );
  });

  test(`at most ${MAX_PLACEHOLDERS} placeholders in one call`, () => {
    const many = (n: number) =>
      Array.from({ length: n }, () => ({ $from: 1, path: '/results/0/url' }));
    expect(fillPlaceholders({ list: many(MAX_PLACEHOLDERS) }, 2, steps(search)).ok).toBe(true);
    expect(problemOf({ list: many(MAX_PLACEHOLDERS + 1) }, 2)).toMatch(
      /more than 16 placeholders in one call/,
    );
  });

  test(`a filled value is at most ${MAX_FILLED_CHARS} characters of JSON`, () => {
    const big = report('web_search', { page: 'x'.repeat(MAX_FILLED_CHARS) });
    expect(problemOf({ q: { $from: 1, path: '/page' } }, 2, steps(big))).toMatch(
      /the value at \/page of step 1 \(web_search\) is 4098 characters as JSON; a placeholder takes at most 4096/,
    );
    const fits = report('web_search', { page: 'x'.repeat(MAX_FILLED_CHARS - 2) });
    expect(fillPlaceholders({ q: { $from: 1, path: '/page' } }, 2, steps(fits)).ok).toBe(true);
  });

  test('an input is looked through at most 64 levels deep (MAX_NESTING_DEPTH), and at most 10,000 values', () => {
    let deep: unknown = { $from: 1 };
    for (let i = 0; i < 70; i++) deep = { d: deep };
    expect(problemOf(deep, 2)).toMatch(/the input nests deeper than 64 levels/);
    const wide = { list: Array.from({ length: 10_001 }, (_, i) => i) };
    expect(problemOf(wide, 2)).toMatch(/the input holds more than 10000 values/);
  });

  test('a key named $from inside a value that is not an object is no placeholder', () => {
    const input = { note: '{"$from": 1}', list: ['$from'] };
    expect(fillPlaceholders(input, 2, steps(search))).toEqual({
      ok: true,
      input,
      read: [],
      filled: 0,
    });
  });
});
