import { describe, expect, test } from 'vitest';
import { formatDuration, MAX_DURATION_MS, parseDuration } from '../../../src/config/index.js';
import { coerceEnvValue } from '../../../src/config/env.js';

describe('parseDuration', () => {
  test.each([
    ['500ms', 500],
    ['5s', 5000],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['0.5s', 500],
    ['1500', 1500],
    [' 5s ', 5000],
    [250, 250],
    [0, 0],
    [12.4, 12],
    [`${MAX_DURATION_MS}`, MAX_DURATION_MS],
  ] as const)('%j is %d ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  test.each([
    [''],
    ['5 s'],
    ['5sec'],
    ['1d'],
    ['-5s'],
    ['5S'],
    ['s'],
    ['1e3'],
    [-1],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    ['25d'],
    [MAX_DURATION_MS + 1],
    ['600h'],
  ] as const)('%j is not a duration', (input) => {
    expect(parseDuration(input)).toBeUndefined();
  });
});

describe('formatDuration', () => {
  test.each([
    [30_000, '30s'],
    [120_000, '2m'],
    [3_600_000, '1h'],
    [5_400_000, '90m'],
    [1500, '1500ms'],
    [1, '1ms'],
    [0, '0ms'],
  ])('%d ms is %s, which parses back to the same ms', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBe(ms);
  });
});

describe('coerceEnvValue', () => {
  test.each([
    ['integer', '4222', { value: 4222 }],
    ['integer', ' 0 ', { value: 0 }],
    ['integer', '-1', { value: -1 }],
    ['integer', '42.5', { problem: "expected a whole number, got '42.5'" }],
    ['integer', '', { problem: "expected a whole number, got ''" }],
    ['boolean', 'true', { value: true }],
    ['boolean', 'TRUE', { value: true }],
    ['boolean', '1', { value: true }],
    ['boolean', 'false', { value: false }],
    ['boolean', '0', { value: false }],
    ['boolean', 'yes', { problem: "expected true, false, 1 or 0, got 'yes'" }],
    ['duration', '5s', { value: '5s' }],
    ['url-list', 'nats://a,nats://b', { value: 'nats://a,nats://b' }],
    ['string', ' keep spaces ', { value: ' keep spaces ' }],
  ] as const)('%s %j -> %j', (kind, raw, expected) => {
    expect(coerceEnvValue(kind, raw)).toEqual(expected);
  });
});
