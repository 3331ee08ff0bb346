import { describe, expect, test } from 'vitest';
import { createCalculate } from '../../../workers/calculator/calculate.js';
import { CalcResultSchema } from '../../../workers/calculator/schema.js';
import { ExpressionRejectedError } from '../../../workers/calculator/screen.js';
import { GOOD_CASES, HOSTILE_CASES } from './cases.js';

// The in-process pipeline (pre-screen, parse, tree check, evaluate, format) without the
// thread around it: the same code eval-thread.ts runs.
const calculate = createCalculate();

function refusal(expression: string): ExpressionRejectedError {
  try {
    calculate(expression);
  } catch (err) {
    if (err instanceof ExpressionRejectedError) return err;
    throw err;
  }
  throw new Error(`${expression} was not refused`);
}

describe('calculate', () => {
  test.each(GOOD_CASES)('answers %s', (expression, expected) => {
    const answer = calculate(expression);
    expect(CalcResultSchema.parse(answer)).toEqual({ expression, ...expected });
  });

  test.each(HOSTILE_CASES)('refuses $label ($reason)', ({ expression, reason }) => {
    expect(refusal(expression).reason).toBe(reason);
  });

  test('a refused expression names what is not allowed', () => {
    expect(refusal('ones(3)').message).toMatch(/function "ones" is not allowed; allowed: add/);
    expect(refusal('x = 1').message).toMatch(/character "=" is not allowed/);
    expect(refusal('a.b').message).toMatch(/property access/);
    expect(refusal('[1, 2] , 3').message).toMatch(/syntax|cannot parse/);
  });

  test('a bare unit is a quantity of one', () => {
    expect(calculate('km')).toEqual({ expression: 'km', result: 'km', value: 1, unit: 'km' });
  });

  test('a unit raised to an infinite power is not finite', () => {
    expect(refusal('km^2^2^2^2^2').reason).toBe('result');
  });
});
