import { describe, expect, test } from 'vitest';
import { jsonRefusal, jsonTextOf, readJsonText, readJsonValue } from '../../../src/text/index.js';

describe('readJsonText: depth on the text, then JSON.parse, then prototype keys', () => {
  test('a value within bounds is returned parsed', () => {
    expect(readJsonText('{"a":[1,{"b":null}]}', 4)).toEqual({
      ok: true,
      value: { a: [1, { b: null }] },
    });
  });

  test('too deep is refused before parsing, with the offset where the limit is passed', () => {
    // `[[[` passes a limit of 2 at its third bracket; malformed text after it is never parsed
    expect(readJsonText('[[[ not json', 2)).toEqual({ ok: false, why: 'deep', offset: 2, max: 2 });
  });

  test('malformed text is a syntax refusal', () => {
    expect(readJsonText('{"a":', 8)).toMatchObject({ ok: false, why: 'syntax' });
  });

  test('a prototype key is refused with its path', () => {
    expect(readJsonText('{"a":[{"__proto__":{}}]}', 8)).toEqual({
      ok: false,
      why: 'prototype',
      key: '__proto__',
      path: ['a', 0, '__proto__'],
    });
    expect(readJsonText('{"constructor":{"prototype":1}}', 8)).toMatchObject({
      why: 'prototype',
      key: 'constructor',
    });
  });

  test("the bound defaults to MAX_NESTING_DEPTH (64): the envelope's, an HTTP body's", () => {
    expect(readJsonText(`${'['.repeat(64)}${']'.repeat(64)}`).ok).toBe(true);
    expect(readJsonText(`${'['.repeat(65)}${']'.repeat(65)}`)).toMatchObject({
      why: 'deep',
      offset: 64,
      max: 64,
    });
  });
});

describe('readJsonValue: the value, or undefined whatever the rung that refused', () => {
  test.each([
    ['{"a":1}', { a: 1 }],
    ['null', null],
    ['{"a":', undefined],
    ['[[[]]]', undefined],
    ['{"__proto__":{"polluted":true}}', undefined],
  ])('%s', (text, value) => {
    expect(readJsonValue(text, 2)).toEqual(value);
  });
});

describe('jsonRefusal: each rung in words that follow "is"', () => {
  const refused = (text: string, depth = 8) => {
    const read = readJsonText(text, depth);
    if (read.ok) throw new Error(`${text} was read`);
    return jsonRefusal(read);
  };

  test('not JSON, with what the parser said', () => {
    expect(refused('{"a":')).toMatch(/^not valid JSON \(.+\)$/);
  });

  test('too deep, with the bound and the offset', () => {
    expect(refused('[[[1]]]', 2)).toBe('nested deeper than 2 levels (at offset 2)');
  });

  test('a prototype key, with its path', () => {
    expect(refused('{"a":[{"__proto__":{}}]}')).toBe(
      "JSON with a `__proto__` key at a[0].__proto__, which could reach an object's prototype",
    );
    expect(refused('{"constructor":{"prototype":{}}}')).toBe(
      "JSON with a `constructor` key holding `prototype` at constructor, which could reach an object's prototype",
    );
  });
});

describe('jsonTextOf: JSON text for a message, never a throw', () => {
  test('a value is its JSON; no text is `absent`; what cannot be written is `unwritable`', () => {
    expect(jsonTextOf({ a: [1, 'x'] }, 'none')).toBe('{"a":[1,"x"]}');
    expect(jsonTextOf(undefined, 'none', 'bad')).toBe('none');
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    expect(jsonTextOf(cycle, 'none', 'bad')).toBe('bad');
    expect(jsonTextOf(10n, 'none')).toBe('none');
  });
});
