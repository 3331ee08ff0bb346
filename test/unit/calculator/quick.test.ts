import fc from 'fast-check';
import { create, formatDependencies } from 'mathjs';
import { describe, expect, test } from 'vitest';
import { createCalculate } from '../../../workers/calculator/calculate.js';
import { formatNumber } from '../../../workers/calculator/format-number.js';
import { quickCalculate } from '../../../workers/calculator/quick.js';
import type { CalcResult } from '../../../workers/calculator/schema.js';
import { ExpressionRejectedError, prescreen } from '../../../workers/calculator/screen.js';
import { GOOD_CASES, HOSTILE_CASES } from './cases.js';

// The quick path must give exactly mathjs's answer, or none: checked against the in-thread
// pipeline itself (createCalculate, the code eval-thread.ts runs) on tables and on
// generated expressions of the language both share and of what only mathjs knows.

const calculate = createCalculate();
const math = create({ ...formatDependencies });

/** mathjs's answer, or the refusal's reason. */
function mathjs(expression: string): CalcResult | { refused: string } {
  try {
    return calculate(expression);
  } catch (err) {
    if (err instanceof ExpressionRejectedError) return { refused: err.reason };
    throw err;
  }
}

/** The quick path as the tool runs it: only on a string the pre-screen let through. */
function quick(expression: string): CalcResult | undefined {
  try {
    prescreen(expression);
  } catch {
    return undefined;
  }
  return quickCalculate(expression);
}

/** Holds when the quick path answers nothing, or exactly what mathjs answers. */
function agrees(expression: string): boolean {
  const answer = quick(expression);
  if (answer === undefined) return true;
  expect(answer).toStrictEqual(mathjs(expression));
  expect(Object.is(answer.value, (mathjs(expression) as CalcResult).value)).toBe(true);
  return true;
}

describe('quick path', () => {
  test.each([
    '17 * 23',
    '2 + 3 * 4',
    '(1+2)/3 * 4.5',
    '-2^2',
    '2^3^2',
    '2^-1',
    '0.1 + 0.2',
    '1/3',
    '.5 + 5.',
    '1e3 / 7',
    '2.5E-7 * 3',
    '123456 * 10',
    '100000',
    '99999.99999999999',
    '0.00012345',
    '-(4 - 10) / 3',
    '+7',
    'sqrt(2) * 3',
    'sin(pi / 6)',
    'cos(tau) + tan(1)',
    'log(100, 10)',
    'log(8)',
    'exp(2) - e',
    'abs(-3) * phi',
    '1/1e400',
    'sqrt (16)',
    '\t2\t*\t3\t',
    '10 % 3',
    '2^10 + 5 % 3',
    '-7 % 3',
    '7.5 mod -2',
    '0.3 % 0.1',
    '5 % -(2)',
    'round(3.14159, 2)',
    'round(2.5) + round(-2.5)',
    'round(1.005, 2)',
    'round(0.1 + 0.2, 15)',
    `${'('.repeat(32)}1${')'.repeat(32)}`,
  ])('answers %s exactly as mathjs', (expression) => {
    expect(quick(expression)).toBeDefined();
    expect(agrees(expression)).toBe(true);
  });

  test.each([
    '5 km to miles',
    '2 pi',
    '2(3)',
    '(1)(2)',
    '50%',
    '5!',
    '5 %',
    '5 % )',
    '5 mod3',
    'round(1.5, 16)',
    'round(1.5, 0.5)',
    'round(1, 2, 3)',
    'sqrt(-4)',
    'sqrt(4, 2)',
    'log(-1)',
    'log(2, -1)',
    '(-8)^(1/3)',
    '1/0',
    '0/0',
    '2^1024',
    'x',
    'sin',
    'pi(2)',
    '[1, 2]',
    '0x1F',
    '1e',
    '1e+',
    '2./3',
    '.',
    '1 2',
    '(1',
    '1)',
    '',
    `${'-'.repeat(80)}1`,
    `${'2^'.repeat(80)}2`,
    Array.from({ length: 100 }, () => '1').join('+'),
  ])('hands %s to mathjs', (expression) => {
    expect(quick(expression)).toBeUndefined();
  });

  test.each(GOOD_CASES.map(([expression]) => expression))('agrees with mathjs on %s', (e) => {
    expect(agrees(e)).toBe(true);
  });

  test.each(HOSTILE_CASES)('hands hostile $label to mathjs', ({ expression }) => {
    expect(quick(expression)).toBeUndefined();
  });

  test('formats every finite number as mathjs does at 14 significant digits', () => {
    const numbers = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer().map((n) => n / 1000),
      fc.integer({ min: -1e9, max: 1e9 }),
      fc
        .tuple(fc.integer({ min: 1, max: 99_999 }), fc.integer({ min: -20, max: 20 }))
        .map(([m, x]) => m * 10 ** x),
    );
    fc.assert(
      fc.property(numbers, (x) => {
        expect(formatNumber(x, 14)).toBe(math.format(x, { precision: 14 }));
      }),
      { numRuns: 20_000 },
    );
  });

  test('answers generated expressions exactly as mathjs, or hands them over', () => {
    const number = fc.oneof(
      fc.integer({ min: 0, max: 1_000_000 }).map(String),
      fc.double({ min: 0, max: 1e6, noNaN: true }).map(String),
      fc.constantFrom('0', '1', '.5', '5.', '1e3', '2.5e-4', '1E+2', '1e400', '0.1', '3.14159'),
    );
    const name = fc.constantFrom('pi', 'e', 'tau', 'phi', 'x', 'km', 'deg');
    const fnName = fc.constantFrom('sqrt', 'sin', 'cos', 'tan', 'exp', 'abs', 'log', 'round');
    const binary = fc.constantFrom(' + ', '-', ' * ', '/', '^', ' ^ ', ' % ', '%', ' mod ', ' ');
    const { expr } = fc.letrec<{ expr: string; term: string }>((tie) => ({
      term: fc.oneof(
        { depthSize: 'small' },
        number,
        name,
        tie('expr').map((e) => `(${e})`),
        tie('term').map((t) => `-${t}`),
        tie('term').map((t) => `+ ${t}`),
        fc
          .tuple(fnName, fc.array(tie('expr'), { minLength: 1, maxLength: 2 }))
          .map(([f, args]) => `${f}(${args.join(', ')})`),
      ),
      expr: fc.oneof(
        { depthSize: 'small' },
        tie('term'),
        fc.tuple(tie('term'), binary, tie('expr')).map(([a, op, b]) => `${a}${op}${b}`),
      ),
    }));
    fc.assert(
      fc.property(expr, (e) => agrees(e)),
      { numRuns: 10_000 },
    );
  });

  test('rounds and takes modulo of generated numbers as mathjs, within its tolerances', () => {
    const n = fc.oneof(
      fc.double({ min: 0, max: 1e9, noNaN: true }),
      fc.integer({ min: 0, max: 100_000 }).map((k) => k / 100),
      fc.integer({ min: 0, max: 1000 }).map((k) => k / 10 + 1e-13),
    );
    const text = n.map(String);
    const expression = fc.oneof(
      fc.tuple(text, text).map(([a, b]) => `${a} % ${b}`),
      fc.tuple(text, text).map(([a, b]) => `-${a} mod ${b}`),
      fc.tuple(text, text).map(([a, b]) => `${a} % -${b}`),
      fc.tuple(text, fc.integer({ min: -1, max: 16 })).map(([a, d]) => `round(${a}, ${d})`),
      fc.tuple(text).map(([a]) => `round(-${a})`),
    );
    fc.assert(
      fc.property(expression, (e) => agrees(e)),
      { numRuns: 10_000 },
    );
  });

  test('answers long flat chains as mathjs up to the tree bounds, and hands over near them', () => {
    for (const n of [2, 10, 40, 56, 57, 60, 64, 65, 70, 200]) {
      for (const op of ['+', '*', '-', '/']) {
        const e = Array.from({ length: n }, (_, i) => String(i + 1)).join(op);
        expect(agrees(e)).toBe(true);
        const refused = 'refused' in mathjs(e);
        if (refused) expect(quick(e)).toBeUndefined();
      }
    }
  });
});
