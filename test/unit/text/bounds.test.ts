import { describe, expect, it } from 'vitest';
import { jsonTextTooDeepAt, MAX_NESTING_DEPTH } from '../../../src/text/bounds.js';

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { a: value } : [value];
  return value;
}

describe('jsonTextTooDeepAt', () => {
  it('counts brackets outside strings only', () => {
    expect(jsonTextTooDeepAt('{"a":"[[[[[[[[[[["}', 2)).toBeUndefined();
    expect(jsonTextTooDeepAt('{"a":"\\"[[[["}', 1)).toBeUndefined();
    expect(jsonTextTooDeepAt('{"a":[[1]]}', 2)).toBe(6);
  });

  it('flags text nested one level past MAX_NESTING_DEPTH, not text at it', () => {
    const text = JSON.stringify(nested(MAX_NESTING_DEPTH + 1));
    expect(jsonTextTooDeepAt(text)).toBeDefined();
    expect(jsonTextTooDeepAt(JSON.stringify(nested(MAX_NESTING_DEPTH)))).toBeUndefined();
  });
});
