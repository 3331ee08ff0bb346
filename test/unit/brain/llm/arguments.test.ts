import { describe, expect, test } from 'vitest';
import { parseCallArguments } from '../../../../src/brain/llm/arguments.js';

describe('parseCallArguments', () => {
  test.each([
    ['{"a":1}', { a: 1 }],
    ['  {"nested": {"b": [1, 2]}} ', { nested: { b: [1, 2] } }],
    ['', {}],
    ['   ', {}],
    ['{}', {}],
  ])('%j is the input %j', (raw, input) => {
    expect(parseCallArguments('t', raw)).toEqual({ input });
  });

  test.each([
    ['{"a": 1', /^the arguments for t are not valid JSON \(.+\): "\{\\"a\\": 1"$/],
    ['not json', /^the arguments for t are not valid JSON/],
    ['[1,2]', /^the arguments for t are JSON but not an object \(got an array\): "\[1,2\]"$/],
    ['"text"', /JSON but not an object \(got a string\)/],
    ['42', /JSON but not an object \(got a number\)/],
    ['null', /JSON but not an object \(got null\)/],
  ])('%j is a problem', (raw, problem) => {
    const r = parseCallArguments('t', raw);
    expect('problem' in r && r.problem).toMatch(problem);
  });

  test('a problem shows at most the first 200 characters, and says it cut them', () => {
    const raw = `{"q": "${'y'.repeat(500)}`;
    const r = parseCallArguments('t', raw);
    const problem = 'problem' in r ? r.problem : '';
    expect(problem).toContain(JSON.stringify(raw.slice(0, 200)) + ' (cut)');
    expect(problem).not.toContain('y'.repeat(200));
  });

  // issue 30: a model's arguments are text from outside, read with the one JSON ladder
  test.each([
    [
      '{"__proto__": {"admin": true}}',
      /are JSON with a `__proto__` key at __proto__, which could reach/,
    ],
    [
      '{"a": {"constructor": {"prototype": {}}}}',
      /a `constructor` key holding `prototype` at a\.constructor/,
    ],
    [
      `{"a": ${'['.repeat(64)}${']'.repeat(64)}}`,
      /are nested deeper than 64 levels \(at offset 69\)/,
    ],
  ])('%j is refused by the ladder', (raw, problem) => {
    const r = parseCallArguments('t', raw);
    expect('problem' in r && r.problem).toMatch(problem);
  });
});
