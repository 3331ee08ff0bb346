import { describe, expect, test } from 'vitest';
import {
  ALLOWED_CONSTANTS,
  ALLOWED_FUNCTIONS,
  ALLOWED_OPERATORS,
  BLOCKED_FUNCTIONS,
  createCalculatorMath,
} from '../../../workers/calculator/scope.js';
import {
  checkTree,
  ExpressionRejectedError,
  MAX_BRACKET_DEPTH,
  MAX_EXPRESSION_LENGTH,
  prescreen,
} from '../../../workers/calculator/screen.js';

function reasonOf(run: () => void): string | undefined {
  try {
    run();
  } catch (err) {
    if (err instanceof ExpressionRejectedError) return err.reason;
    throw err;
  }
  return undefined;
}

describe('prescreen', () => {
  test.each([
    ['1 + 2 * 3', undefined],
    ['5 km to miles', undefined],
    ['[1, 2; 3, 4]', undefined],
    ['1'.repeat(MAX_EXPRESSION_LENGTH), undefined],
    ['1'.repeat(MAX_EXPRESSION_LENGTH + 1), 'too_long'],
    ['', 'empty'],
    ['\t ', 'empty'],
    ['"a"', 'character'],
    ["'a'", 'character'],
    ['`a`', 'character'],
    ['a = 1', 'character'],
    ['{}', 'character'],
    ['1:3', 'character'],
    ['1 < 2', 'character'],
    ['a\nb', 'character'],
    ['π', 'character'],
    [`${'('.repeat(MAX_BRACKET_DEPTH)}1${')'.repeat(MAX_BRACKET_DEPTH)}`, undefined],
    [`${'['.repeat(MAX_BRACKET_DEPTH + 1)}1${']'.repeat(MAX_BRACKET_DEPTH + 1)}`, 'nesting'],
  ])('prescreen(%j) refuses with %s', (expression, reason) => {
    expect(reasonOf(() => prescreen(expression))).toBe(reason);
  });
});

describe('checkTree', () => {
  const { parse, isUnitName } = createCalculatorMath();
  const allow = {
    functions: new Set(ALLOWED_FUNCTIONS),
    operators: new Set(ALLOWED_OPERATORS),
    constants: new Set(ALLOWED_CONSTANTS),
    isUnitName,
  };

  test.each([
    ['sqrt(16) + sin(pi / 2)', undefined],
    ['5 km to miles', undefined],
    ['f(x) = x', 'node'],
    ['x = 1', 'node'],
    ['{a: 1}', 'node'],
    ['1:10', 'node'],
    ['1 ? 2 : 3', 'node'],
    ['1 < 2', 'operator'],
    ['1 < 2 < 3', 'node'],
    ['a.b', 'node'],
    ['a[1]', 'node'],
    ['"text"', 'constant'],
    ['null', 'constant'],
    ['constructor', 'symbol'],
    ['sqrt', 'symbol'],
    ['(sqrt)(4)', 'symbol'],
    ['cos.constructor(1)', 'function'],
    ['import(1)', 'function'],
    ['1 == 1', 'operator'],
    ['not 1', 'operator'],
    ['1 & 2', 'operator'],
    ["[1, 2]'", 'operator'],
  ])('checkTree(%j) refuses with %s', (expression, reason) => {
    expect(reasonOf(() => checkTree(parse(expression), allow))).toBe(reason);
  });

  test('every allowed name is in the instance and no blocked name is allowed', () => {
    const { math } = createCalculatorMath();
    for (const name of [...ALLOWED_FUNCTIONS, ...ALLOWED_CONSTANTS])
      expect(name in math).toBe(true);
    for (const name of BLOCKED_FUNCTIONS) expect(ALLOWED_FUNCTIONS).not.toContain(name);
  });

  test('blocked functions are stubs that throw, even when called directly', () => {
    const { math } = createCalculatorMath();
    const call = (name: string) => (math as unknown as Record<string, () => unknown>)[name]!();
    for (const name of ['import', 'createUnit', 'evaluate', 'parse', 'simplify', 'config']) {
      expect(() => call(name)).toThrow(`function ${name} is disabled`);
    }
  });
});
