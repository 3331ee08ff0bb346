import { describe, expect, test } from 'vitest';
import { isPlainObject, isRecord } from '../../../src/text/index.js';

describe('isRecord and isPlainObject: one rule for "a map" across config, policy and audit', () => {
  test('a map is a record; arrays, null and scalars are not', () => {
    expect(isRecord({ a: 1 })).toBe(true);
    expect(isRecord(Object.create(null))).toBe(true);
    for (const v of [null, undefined, [], [1], 'x', 1, true]) expect(isRecord(v)).toBe(false);
  });

  test('a plain object has the prototype of Object or none; class instances are records, not plain', () => {
    class Box {
      x = 1;
    }
    expect(isRecord(new Box())).toBe(true);
    expect(isPlainObject(new Box())).toBe(false);
    expect(isPlainObject(new Date())).toBe(false);
    expect(isPlainObject(JSON.parse('{"__proto__": {"x": 1}}'))).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
    expect(isPlainObject([])).toBe(false);
  });
});
