import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../../src/config/index.js';
import { parseSettingDuration } from '../../../src/config/setting-duration.js';
import { durationSchema } from '../../../src/text/duration-schema.js';
import {
  formatDuration,
  MAX_DURATION_MS,
  parseDuration,
  readDuration,
} from '../../../src/text/duration.js';
import { tempDir } from '../config/temp-dir.js';
import { issuesOf, policyOf } from '../policy/helpers.js';

const DAY = 86_400_000;
const NO = undefined;

/**
 * The one grammar, read two ways: as a setting (caesar.yaml, env, flags: a bare number is
 * milliseconds) and as the policy reads it (a bare number is refused as ambiguous).
 */
describe('the duration grammar', () => {
  test.each([
    // input, as a setting, as the policy
    ['500ms', 500, 500],
    ['5s', 5000, 5000],
    ['2m', 120_000, 120_000],
    ['1h', 3_600_000, 3_600_000],
    ['1d', DAY, DAY],
    ['0.5s', 500, 500],
    ['1.5m', 90_000, 90_000],
    ['12.4ms', 12, 12],
    [' 5s ', 5000, 5000],
    ['5 s', 5000, 5000],
    ['2 hours', 7_200_000, 7_200_000],
    ['30 sec', 30_000, 30_000],
    ['10seconds', 10_000, 10_000],
    ['3 days', 3 * DAY, 3 * DAY],
    ['minute', 60_000, 60_000],
    ['min', 60_000, 60_000],
    ['sec', 1000, 1000],
    ['hour', 3_600_000, 3_600_000],
    ['day', DAY, DAY],
    ['010s', 10_000, 10_000],
    ['0s', 0, 0],
    // a bare number: milliseconds for settings, ambiguous in the policy
    ['1500', 1500, NO],
    ['0', 0, NO],
    [250, 250, NO],
    [12.4, 12, NO],
    [0, 0, NO],
    [`${MAX_DURATION_MS}`, MAX_DURATION_MS, NO],
    // never a duration
    ['', NO, NO],
    ['s', NO, NO],
    ['m', NO, NO],
    ['ms', NO, NO],
    ['5S', NO, NO],
    ['5 fortnights', NO, NO],
    ['-5s', NO, NO],
    ['+5s', NO, NO],
    ['.5s', NO, NO],
    ['1e3', NO, NO],
    ['5s5', NO, NO],
    ['soon', NO, NO],
    [-1, NO, NO],
    [Number.NaN, NO, NO],
    [Number.POSITIVE_INFINITY, NO, NO],
    [`${'9'.repeat(400)}d`, NO, NO],
  ] as const)('%j is %j as a setting, %j in the policy', (input, setting, policy) => {
    expect(parseSettingDuration(input)).toBe(setting);
    expect(parseDuration(input, { bareNumber: 'ms' })).toBe(setting);
    expect(parseDuration(input)).toBe(policy);
  });

  test.each([
    ['25d', NO],
    ['600h', NO],
    [MAX_DURATION_MS + 1, NO],
    ['24d', 24 * DAY],
  ] as const)('%j against the default maximum is %j', (input, ms) => {
    expect(parseSettingDuration(input)).toBe(ms);
  });

  test('a reader may set its own maximum', () => {
    expect(parseDuration('30d', { max: 30 * DAY })).toBe(30 * DAY);
    expect(parseDuration('31d', { max: 30 * DAY })).toBeUndefined();
  });

  test.each([
    [
      'soon',
      {},
      "invalid duration 'soon': expected a duration such as 500ms, 5s, 1.5m, 2 hours or 1d",
    ],
    [
      'soon',
      { bareNumber: 'ms' },
      "invalid duration 'soon': expected a duration such as 500ms, 5s, 1.5m, 2 hours or 1d, or a number of milliseconds",
    ],
    ['60', {}, 'a bare number is ambiguous here: write it with a unit, such as 60s or 60ms'],
    [60, {}, 'a bare number is ambiguous here: write it with a unit, such as 60s or 60ms'],
    ['30d', {}, "invalid duration '30d': at most 2147483647ms (about 24.8 days)"],
    ['31d', { max: 30 * DAY }, "invalid duration '31d': at most 30d"],
  ] as const)('%j under %j says %j', (input, options, problem) => {
    expect(readDuration(input, options)).toEqual({ problem });
  });
});

describe('formatDuration', () => {
  test.each([
    [30_000, '30s'],
    [120_000, '2m'],
    [3_600_000, '1h'],
    [5_400_000, '90m'],
    [DAY, '1d'],
    [36 * 3_600_000, '36h'],
    [1500, '1500ms'],
    [1, '1ms'],
    [0, '0ms'],
  ])('%d ms is %s, which parses back to the same ms', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBe(ms);
  });
});

describe('durationSchema', () => {
  test('a setting reads a YAML number or an env string of digits as milliseconds', () => {
    const schema = durationSchema({ bareNumber: 'ms' });
    expect(schema.parse(250)).toBe(250);
    expect(schema.parse('250')).toBe(250);
    expect(schema.parse('2 hours')).toBe(7_200_000);
  });

  test('the policy refuses a bare number and a zero window, naming the fix', () => {
    const schema = durationSchema({ min: 1 });
    expect(schema.parse('1.5m')).toBe(90_000);
    const issues = (v: unknown) => schema.safeParse(v).error?.issues.map((i) => i.message);
    expect(issues(60)).toEqual([
      'a bare number is ambiguous here: write it with a unit, such as 60s or 60ms',
    ]);
    expect(issues('0s')).toEqual(["invalid duration '0s': at least 1ms"]);
    expect(issues(true)).toEqual(['expected a duration such as 500ms, 5s, 1.5m, 2 hours or 1d']);
  });

  test('composes with other zod schemas', () => {
    const schema = z.object({ per: durationSchema() });
    expect(schema.parse({ per: '1d' })).toEqual({ per: DAY });
  });
});

describe('every reader speaks the one grammar', () => {
  test('caesar.yaml and env take unit words and days; a bare number stays milliseconds', async () => {
    await using dir = await tempDir();
    await dir.write('caesar.yaml', 'bus:\n  connect_timeout: 2 hours\n  reconnect_wait: 250\n');
    const env = { CAESAR_BRAIN__CONFIRMATION_TTL: '1d', CAESAR_BUS__RECONNECT_JITTER: '100' };
    const config = await loadConfig({ env, cwd: dir.path });
    expect(config.bus.connectTimeoutMs).toBe(7_200_000);
    expect(config.bus.reconnectWaitMs).toBe(250);
    expect(config.bus.reconnectJitterMs).toBe(100);
    expect(config.brain.confirmationTtlMs).toBe(DAY);
  });

  test('the policy takes fractions and unit words, and refuses a bare window as ambiguous', () => {
    const slots = (limit: string) =>
      policyOf(`allowed_tools:\n  - {tool: t, rate_limit: ${limit}}\n`).rateSlots;
    expect(slots('10/1.5m')).toEqual([expect.objectContaining({ calls: 10, windowMs: 90_000 })]);
    expect(slots('{calls: 2, per: 2 hours}')).toEqual([
      expect.objectContaining({ calls: 2, windowMs: 7_200_000 }),
    ]);
    for (const limit of ['{calls: 3, per: 60}', '3/60']) {
      expect(issuesOf(`allowed_tools:\n  - {tool: t, rate_limit: ${limit}}\n`)).toEqual([
        expect.objectContaining({
          path: 'allowed_tools[0].rate_limit.per',
          message:
            'a bare number is ambiguous here: write it with a unit, such as 60s or 60ms; or turn (per model turn)',
        }),
      ]);
    }
  });
});
