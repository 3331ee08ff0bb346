import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { canonicalJson, canonicalRow, chainHash, GENESIS_HASH } from '../../../src/audit/index.js';
import type { JsonValue } from '../../../src/text/canonical-json.js';
import { quoteJson } from '../../../src/audit/canonical.js';

describe('canonicalJson', () => {
  test.each<[string, JsonValue, string]>([
    ['sorts keys by code unit', { b: 1, a: 2, B: 3 }, '{"B":3,"a":2,"b":1}'],
    [
      'sorts nested keys and keeps array order',
      { z: [{ y: 1, x: 2 }], a: null },
      '{"a":null,"z":[{"x":2,"y":1}]}',
    ],
    [
      'orders index-like keys as strings, not numbers',
      { '10': 1, '9': 2, a: 3 },
      '{"10":1,"9":2,"a":3}',
    ],
    [
      'writes numbers as JSON.stringify does',
      { n: [1e21, 0.1, -0, 5e-7] },
      '{"n":[1e+21,0.1,0,5e-7]}',
    ],
    [
      'escapes strings as JSON.stringify does',
      { s: 'a"b\\c\n\u0001é😀' },
      '{"s":"a\\"b\\\\c\\n\\u0001é😀"}',
    ],
    ['has no whitespace', { a: [1, 2], b: { c: true } }, '{"a":[1,2],"b":{"c":true}}'],
  ])('%s', (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  test('is stable under key order and round-trips through JSON.parse', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text) as JsonValue)).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});

describe('canonicalRow and chainHash', () => {
  const row = {
    seq: 7,
    ts: '2025-01-02T03:04:05.678Z',
    eventType: 'tool.called',
    decisionId: 'd-1',
    sessionId: null,
    tool: 'calculator',
    actor: 'token:ops',
    outcome: 'allowed',
    payload: '{"a":1}',
  };

  test('embeds the payload text verbatim between sorted row keys', () => {
    expect(canonicalRow(row)).toBe(
      '{"actor":"token:ops","decision_id":"d-1","event_type":"tool.called","outcome":"allowed",' +
        '"payload":{"a":1},"seq":7,"session_id":null,"tool":"calculator","ts":"2025-01-02T03:04:05.678Z"}',
    );
  });

  test('equals the canonical JSON of the parsed row, so generic JCS verifiers agree', () => {
    const parsed = { ...JSON.parse(canonicalRow(row)) } as JsonValue;
    expect(canonicalJson(parsed)).toBe(canonicalRow(row));
  });

  test('hash is sha256 over prev_hash followed by the canonical row, lower-case hex', () => {
    const h = chainHash(GENESIS_HASH, canonicalRow(row));
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(chainHash(GENESIS_HASH, canonicalRow({ ...row, seq: 8 }))).not.toBe(h);
    expect(chainHash('1'.repeat(64), canonicalRow(row))).not.toBe(h);
  });
});

describe('quoteJson', () => {
  test.each([
    '',
    'abc',
    'a"b',
    'a\\b',
    '\u0000',
    '\u001f',
    '\u007f',
    '\u2028',
    '\uD800',
    'x\uDC00',
    '😀',
    'é',
    'x'.repeat(200),
  ])('quotes %j exactly as JSON.stringify does', (s) => {
    expect(quoteJson(s)).toBe(JSON.stringify(s));
  });

  test('agrees with JSON.stringify on any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => quoteJson(s) === JSON.stringify(s)),
      { numRuns: 2000 },
    );
  });
});
