import { describe, expect, it } from 'vitest';
import { jsonTextTooDeepAt, MAX_NESTING_DEPTH } from '../../../src/text/index.js';
import { findTooDeep } from '../../../src/text/bounds.js';

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { a: value } : [value];
  return value;
}

describe('findTooDeep', () => {
  it('accepts values at the bound and names the path of the first one past it', () => {
    expect(findTooDeep(nested(MAX_NESTING_DEPTH))).toBeUndefined();
    const path = findTooDeep(nested(MAX_NESTING_DEPTH + 1));
    expect(path).toHaveLength(MAX_NESTING_DEPTH);
  });

  it('walks 100,000 levels without overflowing the stack', () => {
    expect(findTooDeep(nested(100_000))).toHaveLength(MAX_NESTING_DEPTH);
  });

  it('treats scalars as depth 0', () => {
    expect(findTooDeep('x', 0)).toBeUndefined();
    expect(findTooDeep({}, 0)).toEqual([]);
  });
});

describe('jsonTextTooDeepAt', () => {
  it('counts brackets outside strings only', () => {
    expect(jsonTextTooDeepAt('{"a":"[[[[[[[[[[["}', 2)).toBeUndefined();
    expect(jsonTextTooDeepAt('{"a":"\\"[[[["}', 1)).toBeUndefined();
    expect(jsonTextTooDeepAt('{"a":[[1]]}', 2)).toBe(6);
  });

  it('agrees with findTooDeep on the parsed value', () => {
    const text = JSON.stringify(nested(MAX_NESTING_DEPTH + 1));
    expect(jsonTextTooDeepAt(text)).toBeDefined();
    expect(jsonTextTooDeepAt(JSON.stringify(nested(MAX_NESTING_DEPTH)))).toBeUndefined();
  });
});
