import { describe, expect, test } from 'vitest';
import { closest, editDistance } from '../../../src/text/index.js';

describe('name suggestions', () => {
  test.each([
    ['kitten', 'sitting', 3],
    ['trun', 'turn', 1],
    ['', 'abc', 3],
    ['same', 'same', 0],
  ])('editDistance(%j, %j) = %d', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
  });

  test('closest allows more edits for longer words, none past the bound, and ignores case', () => {
    expect(closest('lihgt', ['light', 'lock'])).toBe('light');
    expect(closest('LIHGT', ['light', 'lock'])).toBe('light');
    expect(closest('garage', ['light', 'lock'])).toBeUndefined();
    expect(closest('abcdefghijkl', ['abcdefghixyz'])).toBe('abcdefghixyz');
  });
});
