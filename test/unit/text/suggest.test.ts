import { describe, expect, test } from 'vitest';
import { closest } from '../../../src/text/index.js';
import { maxSuggestEdits, editDistance } from '../../../src/text/suggest.js';

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

  test.each([
    ['', 1],
    ['tool', 1],
    ['target', 2],
    ['sentense', 2],
    ['allow_tools', 3],
  ])('a typo of %j may hold %d edits', (word, edits) => {
    expect(maxSuggestEdits(word)).toBe(edits);
  });

  test.each([
    // one threshold for every reader: policy keys, intents keys, config keys, HA names
    ['tagret', ['target', 'tool'], 'target'],
    ['allow_tools', ['allowed_tools', 'denied_tools'], 'allowed_tools'],
    ['sentense', ['sentences', 'slots'], 'sentences'],
    ['confrim', ['confirm', 'config'], 'confirm'],
    ['tol', ['tool', 'id'], 'tool'],
    ['ty', ['id', 'type'], undefined],
    ['mx', ['max', 'min'], 'max'],
    ['x'.repeat(10_000), ['target'], undefined],
  ])('closest(%j) among %j is %j', (word, candidates, hint) => {
    expect(closest(word, candidates)).toBe(hint);
  });
});
