import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { canonicalJson } from '../../../src/audit/index.js';
import { clampPayload, truncationMarker } from '../../../src/audit/clamp.js';
import { ClampLimitsSchema } from '../../../src/audit/limits.js';
import type { JsonValue } from '../../../src/text/canonical-json.js';

const limits = ClampLimitsSchema.parse({});
const clamp = (payload: unknown, l = limits) => clampPayload(payload, l);
const parse = (json: string) => JSON.parse(json) as Record<string, unknown>;

describe('string cap', () => {
  test('a string over the cap keeps its head and says how long it was', () => {
    const long = 'a'.repeat(20_000);
    const out = parse(clamp({ text: long }).json);
    expect(out.text).toBe('a'.repeat(16_384) + truncationMarker(20_000));
    expect(String(out.text)).toMatch(/… \[truncated, 20000 chars total\]$/);
  });

  test('a string at the cap is kept whole and the result is not marked clamped', () => {
    const r = clamp({ text: 'b'.repeat(16_384) });
    expect(r.clamped).toBe(false);
    expect(parse(r.json).text).toHaveLength(16_384);
  });

  test('the cut never splits a surrogate pair', () => {
    const small = ClampLimitsSchema.parse({ maxStringChars: 64 });
    const text = 'x'.repeat(63) + '😀'.repeat(10);
    const out = String(parse(clamp({ text }, small).json).text);
    expect(out.startsWith('x'.repeat(63) + '…')).toBe(true);
  });

  test('the string cap is configurable', () => {
    const small = ClampLimitsSchema.parse({ maxStringChars: 100 });
    expect(String(parse(clamp({ s: 'c'.repeat(500) }, small).json).s)).toHaveLength(
      100 + truncationMarker(500).length,
    );
  });
});

describe('payload cap', () => {
  test('an oversized payload stays valid JSON under the cap and says what was cut', () => {
    const payload = {
      result: Array.from({ length: 200 }, (_, i) => ({ i, text: 'y'.repeat(2000) })),
    };
    const r = clamp(payload);
    expect(r.clamped).toBe(true);
    expect(Buffer.byteLength(r.json)).toBeLessThanOrEqual(65_536);
    const out = parse(r.json);
    expect(out._clamped).toMatchObject({ reason: 'payload exceeded 65536 bytes' });
    const items = out.result as unknown[];
    expect(items.at(-1)).toBe('… [truncated, 200 items total]');
  });

  test('a payload of very many keys is cut to a skeleton naming its keys', () => {
    const payload = Object.fromEntries(
      Array.from({ length: 5000 }, (_, i) => [`k${String(i).padStart(4, '0')}`, 'v'.repeat(100)]),
    );
    const small = ClampLimitsSchema.parse({ maxPayloadBytes: 2048 });
    const r = clamp(payload, small);
    expect(Buffer.byteLength(r.json)).toBeLessThanOrEqual(2048);
    expect(parse(r.json)._clamped).toBeDefined();
  });

  test('multi-byte text is measured in UTF-8 bytes', () => {
    const r = clamp({ t: Array.from({ length: 40 }, () => '€'.repeat(1000)) });
    expect(Buffer.byteLength(r.json)).toBeLessThanOrEqual(65_536);
    expect(r.clamped).toBe(true);
  });

  test('any JSON value stays valid JSON within the limits', () => {
    const small = ClampLimitsSchema.parse({
      maxStringChars: 64,
      maxPayloadBytes: 1024,
      maxDepth: 4,
    });
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (payload) => {
        const r = clamp(payload, small);
        expect(Buffer.byteLength(r.json)).toBeLessThanOrEqual(1024);
        expect(() => JSON.parse(r.json) as unknown).not.toThrow();
      }),
    );
  });
});

describe('depth cap', () => {
  test('nesting below the depth cap is replaced by a marker', () => {
    let deep: unknown = { leaf: true };
    for (let i = 0; i < 30; i++) deep = { next: deep };
    const json = clamp({ deep }).json;
    expect(json).toContain('[truncated: nested deeper than 16 levels]');
    expect(json).not.toContain('leaf');
  });
});

describe('non-JSON values', () => {
  test.each<[string, unknown, unknown]>([
    ['undefined members are dropped', { a: undefined, b: 1 }, { b: 1 }],
    ['undefined in arrays becomes null', { a: [undefined, 1] }, { a: [null, 1] }],
    ['non-finite numbers become null', { a: NaN, b: Infinity }, { a: null, b: null }],
    [
      'bigint becomes a decimal string',
      { a: 12345678901234567890n },
      { a: '12345678901234567890' },
    ],
    ['dates become ISO strings', { a: new Date(0) }, { a: '1970-01-01T00:00:00.000Z' }],
    ['bytes become a size', { a: Buffer.from('abc') }, { a: '[binary, 3 bytes]' }],
    [
      'errors keep name, message and code',
      { e: Object.assign(new Error('boom'), { code: 'E1' }) },
      { e: { code: 'E1', message: 'boom', name: 'Error' } },
    ],
    [
      'maps and sets become objects and arrays',
      { m: new Map([['k', 1]]), s: new Set([2]) },
      { m: { k: 1 }, s: [2] },
    ],
    ['functions are dropped', { f: () => 1, g: 2 }, { g: 2 }],
  ])('%s', (_name, input, expected) => {
    expect(parse(clamp(input).json)).toEqual(expected);
  });

  test('a circular reference becomes a marker instead of a crash', () => {
    const a: Record<string, unknown> = { x: 1 };
    a.self = a;
    expect(parse(clamp(a).json)).toEqual({ self: '[circular]', x: 1 });
  });

  test('output is canonical: keys sorted, index-like keys included', () => {
    expect(clamp({ b: 1, a: { '10': 1, '9': 2 } }).json).toBe('{"a":{"10":1,"9":2},"b":1}');
  });
});

describe('stored bytes (the fast writer and the tree walk agree)', () => {
  const small = ClampLimitsSchema.parse({ maxStringChars: 64, maxDepth: 3 });
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;

  test.each<[string, unknown, string, boolean]>([
    ['a date', { at: new Date(0) }, '{"at":"1970-01-01T00:00:00.000Z"}', false],
    [
      'a map, a set and an error',
      {
        m: new Map<unknown, unknown>([
          ['k', 1],
          [2, 'v'],
        ]),
        s: new Set([1, 'a']),
        e: Object.assign(new Error('boom'), { code: 'E1' }),
      },
      '{"e":{"code":"E1","message":"boom","name":"Error"},"m":{"2":"v","k":1},"s":[1,"a"]}',
      false,
    ],
    ['bytes', { b: Buffer.from('abc') }, '{"b":"[binary, 3 bytes]"}', false],
    ['a cycle', cyclic, '{"a":1,"self":"[circular]"}', false],
    [
      'index-like keys',
      { b: 'c', 1: 'a', 0: 'z', '01': 1 },
      '{"0":"z","01":1,"1":"a","b":"c"}',
      false,
    ],
    [
      'a key redacted in place',
      { 'token=abc': 1, a: 2 },
      '{"a":2,"token=[redacted]":"[redacted]"}',
      false,
    ],
    [
      'a key over the string cap',
      { ['x'.repeat(70)]: 1, b: 2 },
      `{"b":2,"${'x'.repeat(64)}… [truncated, 70 chars total]":1}`,
      true,
    ],
    ['a __proto__ key', JSON.parse('{"__proto__": {"x": 1}, "b": 2}'), '{"b":2}', false],
    [
      'values JSON has no form for',
      { u: undefined, f: () => 1, arr: [undefined, () => 1, 1, NaN, -0, 10n], k: 'v' },
      '{"arr":[null,null,1,null,0,"10"],"k":"v"}',
      false,
    ],
    [
      'nesting past the cap',
      { a: { b: { c: { d: 1 } } } },
      '{"a":{"b":{"c":"[truncated: nested deeper than 3 levels]"}}}',
      true,
    ],
    [
      'escapes',
      { s: 'x\uD800y', t: '\u2028"\\\n\u0001', e: '😀' },
      '{"e":"😀","s":"x\\ud800y","t":"\u2028\\"\\\\\\n\\u0001"}',
      false,
    ],
  ])('%s', (_name, input, json, clamped) => {
    expect(clamp(input, small)).toEqual({ json, clamped });
  });

  test('the canonical writer matches canonicalJson of the parsed result for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const { json } = clamp(value);
        expect(json).toBe(canonicalJson(JSON.parse(json) as JsonValue));
      }),
      { numRuns: 500 },
    );
  });
});
