import { describe, expect, test } from 'vitest';
import { readJsonText } from '../../../src/text/index.js';

describe('readJsonText: depth on the text, then JSON.parse, then prototype keys', () => {
  test('a value within bounds is returned parsed', () => {
    expect(readJsonText('{"a":[1,{"b":null}]}', 4)).toEqual({
      ok: true,
      value: { a: [1, { b: null }] },
    });
  });

  test('too deep is refused before parsing, with the offset where the limit is passed', () => {
    // `[[[` passes a limit of 2 at its third bracket; malformed text after it is never parsed
    expect(readJsonText('[[[ not json', 2)).toEqual({ ok: false, why: 'deep', offset: 2 });
  });

  test('malformed text is a syntax refusal', () => {
    expect(readJsonText('{"a":', 8)).toEqual({ ok: false, why: 'syntax' });
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
});
