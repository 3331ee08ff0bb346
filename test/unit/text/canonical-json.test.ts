import { describe, expect, test } from 'vitest';
import { canonicalJson as auditCanonical } from '../../../src/audit/index.js';
import { canonicalJson as protocolCanonical } from '../../../src/protocol/index.js';
import { canonicalJson } from '../../../src/text/index.js';

/**
 * Reference, written independently: keys sorted with the default sort (UTF-16 code units),
 * joined by hand. (JSON.stringify of a key-sorted copy is not one: JavaScript enumerates
 * integer-like keys such as "1" first, whatever the insertion order.)
 */
function reference(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map((v) => (v === undefined ? 'null' : reference(v))).join(',')}]`;
  }
  if (value !== null && typeof value === 'object') {
    const rec = value as Record<string, unknown>;
    const members = Object.keys(rec)
      .sort()
      .filter((k) => rec[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${reference(rec[k])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A small seeded generator, so a failure names a reproducible case. */
function randomValue(seed: number, depth = 0): unknown {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = next();
  const strings = ['', 'a', 'é', '"q"', 'back\\slash', 'line\nbreak', '\u0001', '😀', '\ud800'];
  if (depth > 3 || pick < 0.3) {
    const leaf = next();
    if (leaf < 0.2) return null;
    if (leaf < 0.35) return leaf < 0.28;
    if (leaf < 0.6) return [0, -0, 1.5, 1e21, -1e-7, 2 ** 53, 123456789][Math.floor(next() * 7)];
    if (leaf < 0.7) return undefined;
    return strings[Math.floor(next() * strings.length)];
  }
  const n = Math.floor(next() * 4);
  if (pick < 0.6) return Array.from({ length: n }, (_, i) => randomValue(seed * 31 + i, depth + 1));
  const obj: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    obj[strings[Math.floor(next() * strings.length)]! + String(i % 2)] = randomValue(
      seed * 17 + i,
      depth + 1,
    );
  }
  return obj;
}

describe('canonicalJson (src/text, the one implementation)', () => {
  test('sorts keys at every depth, no whitespace, drops undefined members, null in arrays', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }, undefined], c: undefined } })).toBe(
      '{"a":{"d":[{"y":2,"z":1},null]},"b":1}',
    );
  });

  test('integer-like keys sort as strings too (JavaScript would enumerate them first)', () => {
    expect(canonicalJson({ a: 3, '9': 2, '10': 1, '"q"': 0 })).toBe(
      '{"\\"q\\"":0,"10":1,"9":2,"a":3}',
    );
  });

  test('keys sort by UTF-16 code unit, not by locale', () => {
    expect(canonicalJson({ é: 1, z: 2, Z: 3, '😀': 4, '\u00e9a': 5 })).toBe(
      '{"Z":3,"z":2,"é":1,"éa":5,"😀":4}',
    );
  });

  test.each(Array.from({ length: 300 }, (_, i) => i + 1))(
    'random value %i serialises like the reference',
    (seed) => {
      const value = randomValue(seed);
      if (value === undefined) return; // JSON has no text for a bare undefined
      expect(canonicalJson(value)).toBe(reference(value));
    },
  );

  test('a value with toJSON (a Date) is written as JSON.stringify writes it: the same digest once parsed again', () => {
    const value = {
      at: new Date(Date.UTC(2026, 11, 4, 8, 30)),
      list: [new Date(0)],
      own: { toJSON: () => ({ b: 1, a: 2 }) },
    };
    const parsed: unknown = JSON.parse(JSON.stringify(value));
    expect(canonicalJson(value)).toBe(canonicalJson(parsed));
    expect(canonicalJson(value)).toBe(
      '{"at":"2026-12-04T08:30:00.000Z","list":["1970-01-01T00:00:00.000Z"],"own":{"a":2,"b":1}}',
    );
  });

  test('the audit log and the protocol use this same function', () => {
    expect(auditCanonical).toBe(canonicalJson);
    expect(protocolCanonical).toBe(canonicalJson);
  });
});
