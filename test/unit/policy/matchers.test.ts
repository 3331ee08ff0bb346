import { describe, expect, test } from 'vitest';
import { PolicyEngine } from '../../../src/policy/index.js';
import { DEFAULT_DENY_RULE_ID, type DecisionOutcome } from '../../../src/policy/decision.js';
import { TOOL_MATCHERS } from '../../../src/policy/matchers/registry.js';
import { CalcInputSchema } from '../../../workers/calculator/schema.js';
import { policyOf, tool } from './helpers.js';

/** 2026-03-01T00:00:00Z: the engine's clock, so ranges measured from "now" are fixed. */
const NOW = Date.UTC(2026, 2, 1);

const engine = new PolicyEngine(
  policyOf(`
allowed_tools:
  - tool: web_search
    id: search
    input:
      domain_allowlist: [en.wikipedia.org, "*.python.org"]
      max_results: 10
      query: {type: string, max_length: 50}
  - tool: calendar_read
    id: calendar
    input:
      calendars: [personal, "team_*"]
      max_range_days: 31
    additional_input: false
  - tool: calculator
    id: calc
    input:
      max_length: 20
`),
  { now: () => NOW },
);

describe('typed keys declared by the shipped tools', () => {
  test.each<[string, string, unknown, DecisionOutcome, RegExp | null]>([
    // web_search
    ['web_search without max_results', 'web_search', { query: 'rome' }, 'allow', null],
    [
      'web_search within max_results',
      'web_search',
      { query: 'rome', max_results: 10 },
      'allow',
      null,
    ],
    [
      'web_search above max_results',
      'web_search',
      { query: 'rome', max_results: 11 },
      'deny',
      /input\.max_results 11 is above max_results 10/,
    ],
    // limit, the seed design's name for max_results, is judged as max_results (ADR 0088)
    ['web_search with limit within', 'web_search', { query: 'rome', limit: 10 }, 'allow', null],
    [
      'web_search with limit above max_results',
      'web_search',
      { query: 'rome', limit: 11 },
      'deny',
      /input\.max_results 11 is above max_results 10/,
    ],
    [
      'web_search with limit and max_results equal, above',
      'web_search',
      { query: 'rome', limit: 11, max_results: 11 },
      'deny',
      /input\.max_results 11 is above max_results 10/,
    ],
    [
      'web_search with limit and max_results disagreeing: both are judged',
      'web_search',
      { query: 'rome', limit: 50, max_results: 5 },
      'deny',
      /input\.limit 50 is above max_results 10/,
    ],
    [
      'web_search with a non-integer max_results',
      'web_search',
      { query: 'rome', max_results: '5' },
      'deny',
      /input\.max_results must be an integer/,
    ],
    [
      'web_search with a field constraint failing beside the typed keys',
      'web_search',
      { query: 'x'.repeat(51) },
      'deny',
      /input\.query is longer than max_length 50/,
    ],
    // calendar_read
    [
      'calendar_read with listed calendars and days',
      'calendar_read',
      { calendars: ['personal', 'team_ops'], days: 7 },
      'allow',
      null,
    ],
    [
      'calendar_read naming no calendar',
      'calendar_read',
      { days: 7 },
      'deny',
      /input\.calendars is missing; name one of personal, team_\*/,
    ],
    [
      'calendar_read naming an unlisted calendar',
      'calendar_read',
      { calendars: ['personal', 'boss'], days: 7 },
      'deny',
      /calendar "boss" is not one of personal, team_\*/,
    ],
    [
      'calendar_read with calendars as a string',
      'calendar_read',
      { calendars: 'personal', days: 7 },
      'deny',
      /must be a non-empty list/,
    ],
    [
      'calendar_read with too many days',
      'calendar_read',
      { calendars: ['personal'], days: 32 },
      'deny',
      /input\.days 32 is above max_range_days 31/,
    ],
    [
      'calendar_read start..end within the limit',
      'calendar_read',
      { calendars: ['personal'], start: '2026-03-01', end: '2026-03-31' },
      'allow',
      null,
    ],
    [
      'calendar_read start..end over the limit',
      'calendar_read',
      { calendars: ['personal'], start: '2026-01-01', end: '2026-12-31' },
      'deny',
      /the range spans 364\.0 days, above max_range_days 31/,
    ],
    [
      'calendar_read end measured from now when start is absent',
      'calendar_read',
      { calendars: ['personal'], end: '2026-03-20T12:00:00Z' },
      'allow',
      null,
    ],
    [
      'calendar_read end too far from now',
      'calendar_read',
      { calendars: ['personal'], end: '2027-03-01' },
      'deny',
      /above max_range_days 31/,
    ],
    [
      'calendar_read end before start',
      'calendar_read',
      { calendars: ['personal'], start: '2026-03-10', end: '2026-03-01' },
      'deny',
      /input\.end is before input\.start/,
    ],
    [
      'calendar_read with a date that is not ISO 8601',
      'calendar_read',
      { calendars: ['personal'], end: 'next tuesday' },
      'deny',
      /input\.end must be an ISO 8601 date/,
    ],
    [
      'calendar_read with no bound on the range',
      'calendar_read',
      { calendars: ['personal'] },
      'deny',
      /input must bound the range with days or end/,
    ],
    [
      'calendar_read with an input the rule does not list (additional_input: false)',
      'calendar_read',
      { calendars: ['personal'], days: 1, query: 'x' },
      'deny',
      /input\.query is not listed/,
    ],
    // calculator
    ['calculator within max_length', 'calculator', { expression: '17 * 23' }, 'allow', null],
    [
      'calculator over max_length',
      'calculator',
      { expression: '1+'.repeat(20) + '1' },
      'deny',
      /input\.expression has 41 characters, more than max_length 20/,
    ],
    [
      'calculator with a non-string expression',
      'calculator',
      { expression: 42 },
      'deny',
      /input\.expression must be a string/,
    ],
  ])('%s', (_name, name, input, outcome, reason) => {
    const d = engine.evaluate(tool(name, input));
    expect(d.outcome).toBe(outcome);
    if (reason) {
      expect(d.reason).toMatch(reason);
      expect(d.reason).toContain(`tool '${name}' is not allowed:`);
      expect(d.rule.id).toBe(DEFAULT_DENY_RULE_ID);
    }
  });

  test('web_search carries both obligations: filter result URLs, keep at most max_results', () => {
    expect(engine.evaluate(tool('web_search', { query: 'rome' })).obligations).toEqual([
      { type: 'filter_result_urls', allow_domains: ['en.wikipedia.org', '*.python.org'] },
      { type: 'limit_results', max_results: 10 },
    ]);
  });

  test('a tool that is not shipped takes generic constraints on any field', () => {
    const e = new PolicyEngine(
      policyOf('allowed_tools:\n  - {tool: notes, input: {text: {max_length: 3}}}\n'),
    );
    expect(e.evaluate(tool('notes', { text: 'abc' })).outcome).toBe('allow');
    expect(e.evaluate(tool('notes', { text: 'abcd' })).outcome).toBe('deny');
  });

  test("the calculator matcher's input fields are the worker's input fields", () => {
    expect([...(TOOL_MATCHERS.get('calculator')?.fields ?? [])].sort()).toEqual(
      Object.keys(CalcInputSchema.shape).sort(),
    );
  });

  test('every shipped tool the issue names has its typed keys', () => {
    const keys = (name: string) => Object.keys(TOOL_MATCHERS.get(name)?.keys ?? {}).sort();
    expect(keys('web_search')).toEqual(['domain_allowlist', 'max_results']);
    expect(keys('calendar_read')).toEqual(['calendars', 'max_range_days']);
    expect(keys('calculator')).toEqual(['max_length']);
  });
});
