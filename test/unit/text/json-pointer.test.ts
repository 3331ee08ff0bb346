import { describe, expect, test } from 'vitest';
import {
  MAX_POINTER_CHARS,
  MAX_POINTER_TOKENS,
  parseJsonPointer,
  resolveJsonPointer,
} from '../../../src/text/json-pointer.js';

const doc = {
  results: [
    { url: 'https://a.example', title: 'A' },
    { url: 'https://b.example', title: 'B' },
  ],
  'a/b': 1,
  'm~n': 2,
  '': 'empty key',
  nested: { zero: 0, nil: null, no: false },
};

describe('parseJsonPointer (RFC 6901)', () => {
  test.each([
    ['', []],
    ['/', ['']],
    ['/results/0/url', ['results', '0', 'url']],
    ['/a~1b', ['a/b']],
    ['/m~0n', ['m~n']],
    // ~01 is ~ then 1, not /: ~1 is undone before ~0
    ['/~01', ['~1']],
  ])('%j -> %j', (pointer, tokens) => {
    expect(parseJsonPointer(pointer)).toEqual({ ok: true, tokens });
  });

  test.each([
    ['results/0', /must be empty or start with "\/"/],
    ['/a~2b', /"~" must be followed by 0 or 1/],
    ['/a~', /"~" must be followed by 0 or 1/],
  ])('%j is refused', (pointer, why) => {
    const parsed = parseJsonPointer(pointer);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problem).toMatch(why);
  });

  test('a pointer is bounded in length and in tokens', () => {
    const long = parseJsonPointer(`/${'x'.repeat(MAX_POINTER_CHARS)}`);
    expect(!long.ok && long.problem).toMatch(/longer than 256 characters/);
    const many = parseJsonPointer('/a'.repeat(MAX_POINTER_TOKENS + 1));
    expect(!many.ok && many.problem).toMatch(/more than 32 steps/);
    expect(parseJsonPointer('/a'.repeat(MAX_POINTER_TOKENS)).ok).toBe(true);
  });
});

describe('resolveJsonPointer', () => {
  const at = (pointer: string) => {
    const parsed = parseJsonPointer(pointer);
    if (!parsed.ok) throw new Error(parsed.problem);
    return resolveJsonPointer(doc, parsed.tokens);
  };

  test.each([
    ['', doc],
    ['/results/1/url', 'https://b.example'],
    ['/results/0', { url: 'https://a.example', title: 'A' }],
    ['/a~1b', 1],
    ['/m~0n', 2],
    ['/', 'empty key'],
    // values that are falsy are still found
    ['/nested/zero', 0],
    ['/nested/nil', null],
    ['/nested/no', false],
  ])('%j finds its value', (pointer, value) => {
    expect(at(pointer)).toEqual({ found: true, value });
  });

  test.each([
    // an index past the end, "-" (the end itself), leading zeros, signs, not a number
    ['/results/2', '/results/2'],
    ['/results/-', '/results/-'],
    ['/results/01', '/results/01'],
    ['/results/+1', '/results/+1'],
    ['/results/url', '/results/url'],
    // a key that is not there, a step into a string, a number, null
    ['/missing/x', '/missing'],
    ['/results/0/url/0', '/results/0/url/0'],
    ['/nested/zero/x', '/nested/zero/x'],
    ['/nested/nil/x', '/nested/nil/x'],
    // what an object inherits is not in it
    ['/constructor', '/constructor'],
    ['/__proto__', '/__proto__'],
    ['/results/length', '/results/length'],
  ])('%j finds nothing (stops at %j)', (pointer, stop) => {
    expect(at(pointer)).toEqual({ found: false, at: stop });
  });

  test('an own __proto__ key (as JSON.parse makes it) is found like any key', () => {
    const parsed = JSON.parse('{"__proto__": {"x": 1}}') as unknown;
    expect(resolveJsonPointer(parsed, ['__proto__', 'x'])).toEqual({ found: true, value: 1 });
  });
});
