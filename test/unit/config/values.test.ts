import { describe, expect, test } from 'vitest';
import { coerceEnvValue } from '../../../src/config/env.js';

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
