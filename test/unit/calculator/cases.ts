import type { CalcResult } from '../../../workers/calculator/schema.js';

/** Expressions the calculator answers, with the answer it gives. */
export const GOOD_CASES: [string, Omit<CalcResult, 'expression'>][] = [
  ['17 * 23', { result: '391', value: 391 }],
  ['2 + 3 * 4', { result: '14', value: 14 }],
  ['(2 + 3) * 4', { result: '20', value: 20 }],
  ['-2^2', { result: '-4', value: -4 }],
  ['2^10', { result: '1024', value: 1024 }],
  ['2^3^2', { result: '512', value: 512 }],
  ['7 / 2', { result: '3.5', value: 3.5 }],
  ['10 % 3', { result: '1', value: 1 }],
  ['10 mod 4', { result: '2', value: 2 }],
  ['50%', { result: '0.5', value: 0.5 }],
  ['5!', { result: '120', value: 120 }],
  ['0.1 + 0.2', { result: '0.3', value: 0.30000000000000004 }],
  ['sqrt(16)', { result: '4', value: 4 }],
  ['cbrt(27)', { result: '3', value: 3 }],
  ['nthRoot(-8, 3)', { result: '-2', value: -2 }],
  ['log(100, 10)', { result: '2', value: 2 }],
  ['log10(1000)', { result: '3', value: 3 }],
  ['log2(8)', { result: '3', value: 3 }],
  ['exp(1)', { result: '2.718281828459', value: Math.E }],
  ['sin(pi/2)', { result: '1', value: 1 }],
  ['cos(0)', { result: '1', value: 1 }],
  ['sin(30 deg)', { result: '0.5', value: 0.49999999999999994 }],
  ['atan2(1, 1)', { result: '0.78539816339745', value: Math.PI / 4 }],
  ['round(3.14159, 2)', { result: '3.14', value: 3.14 }],
  ['floor(2.9) + ceil(2.1) + fix(-2.5)', { result: '3', value: 3 }],
  ['abs(-3) * sign(-3)', { result: '-3', value: -3 }],
  ['max(1, 7, 3) - min(4, 2)', { result: '5', value: 5 }],
  ['hypot(3, 4)', { result: '5', value: 5 }],
  ['gcd(12, 18) + lcm(4, 6)', { result: '18', value: 18 }],
  ['pi', { result: '3.1415926535898', value: Math.PI }],
  ['e', { result: '2.718281828459', value: Math.E }],
  ['tau', { result: '6.2831853071796', value: 2 * Math.PI }],
  ['phi', { result: '1.6180339887499', value: 1.618033988749895 }],
  ['2 pi', { result: '6.2831853071796', value: 2 * Math.PI }],
  ['5 km to miles', { result: '3.1068559611867 miles', value: 3.1068559611866697, unit: 'miles' }],
  ['5 km in miles', { result: '3.1068559611867 miles', value: 3.1068559611866697, unit: 'miles' }],
  ['100 degF to degC', { result: '37.777777777778 degC', value: 37.77777777777778, unit: 'degC' }],
  ['2 km + 300 m', { result: '2.3 km', value: 2.3, unit: 'km' }],
  ['3 m * 2 m', { result: '6 m^2', value: 6, unit: 'm^2' }],
  ['10 m / 2 s', { result: '5 m / s', value: 5, unit: 'm / s' }],
  ['sqrt(-4)', { result: '2i', value: '2i' }],
  ['sqrt(-1) * sqrt(-1)', { result: '-1', value: -1 }],
  ['[1, 2; 3, 4] * 2', { result: '[[2, 4], [6, 8]]', value: '[[2, 4], [6, 8]]' }],
  ['[1, 1; 1, 0]^10', { result: '[[89, 55], [55, 34]]', value: '[[89, 55], [55, 34]]' }],
];

export interface Refusal {
  readonly label: string;
  readonly expression: string;
  /** The stable reason code in the `invalid_input` error's details. */
  readonly reason: string;
}

function refusal(label: string, expression: string, reason: string): Refusal {
  return { label, expression, reason };
}

/**
 * Hostile or out-of-scope expressions, each refused with `invalid_input` and the stated
 * reason (a stable code in the error's details).
 */
export const HOSTILE_CASES: Refusal[] = [
  refusal('huge exponent', '9^9^9^9', 'result'),
  refusal('overflowing literal', '1e400', 'result'),
  refusal('division by zero', '1/0', 'result'),
  refusal('factorial of a million', 'factorial(1e6)', 'result'),
  refusal('enormous matrix via ones()', 'ones(10000, 10000)', 'function'),
  refusal('enormous matrix via zeros()', 'zeros(1e6)', 'function'),
  refusal('huge range()', 'range(1, 1e9)', 'function'),
  refusal('huge range literal', '1:1e9', 'character'),
  refusal('large matrix literal', `[${'1,'.repeat(100)}1]`, 'matrix_size'),
  refusal('matrix to a huge power (mathjs answers identity)', '[1, 2; 3, 4]^1e300', 'matrix_power'),
  refusal('matrix power through pow()', 'pow([1, 2; 3, 4], 100)', 'matrix_power'),
  refusal('matrix expression to a fractional power', '([1, 2; 3, 4] * 2)^0.5', 'matrix_power'),
  refusal(
    '500-deep parentheses (over the length cap first)',
    `${'('.repeat(500)}1${')'.repeat(500)}`,
    'too_long',
  ),
  refusal('400-deep parentheses', `${'('.repeat(400)}1${')'.repeat(400)}`, 'nesting'),
  refusal('150-deep function nesting', `${'sin('.repeat(150)}1${')'.repeat(150)}`, 'nesting'),
  refusal('300-deep matrix nesting', `${'['.repeat(300)}1${']'.repeat(300)}`, 'nesting'),
  refusal('900 chained unary minus', `${'-'.repeat(900)}1`, 'tree_size'),
  refusal('400 chained powers', `${'2^'.repeat(400)}2`, 'tree_size'),
  refusal('1001 characters', `${'1+'.repeat(500)}1`, 'too_long'),
  refusal('import with an object', 'import({pi: 3})', 'character'),
  refusal('import by name', 'import(x)', 'function'),
  refusal('createUnit with a string', "createUnit('foo')", 'character'),
  refusal('createUnit by name', 'createUnit(foo)', 'function'),
  refusal('evaluate with a string', 'evaluate("1")', 'character'),
  refusal('evaluate by name', 'evaluate(1)', 'function'),
  refusal('parse with a string', 'parse("1")', 'character'),
  refusal('parse by name', 'parse(x)', 'function'),
  refusal('simplify with a string', 'simplify("x")', 'character'),
  refusal('simplify by name', 'simplify(x)', 'function'),
  refusal('config change', 'config(x)', 'function'),
  refusal(
    'sandbox escape via constructor call',
    'cos.constructor("return process")()',
    'character',
  ),
  refusal('constructor access', 'cos.constructor', 'node'),
  refusal('array method constructor', '[].map.constructor', 'node'),
  refusal('index access', 'sqrt[1]', 'node'),
  refusal('string constructor', '"a".constructor', 'character'),
  refusal('proto symbol', '__proto__', 'symbol'),
  refusal('function definition', 'f(x)=x', 'character'),
  refusal('assignment', 'x=1', 'character'),
  refusal('object literal', '{a: 1}', 'character'),
  refusal('string concatenation', 'concat("a", "b")', 'character'),
  refusal('concat by name', 'concat(1, 2)', 'function'),
  refusal('several statements', 'sin(1); cos(1)', 'node'),
  refusal('newline-separated statements', 'sin(1)\ncos(1)', 'character'),
  refusal('comment', '1 # 2', 'character'),
  refusal('conditional', '1 ? 2 : 3', 'character'),
  refusal('boolean literal', 'true', 'constant'),
  refusal('undefined literal', 'undefined', 'constant'),
  refusal('unknown variable', 'x + 1', 'symbol'),
  refusal('bare function name', 'sin', 'symbol'),
  refusal('logic operator', '1 and 0', 'operator'),
  refusal('mismatched units', '5 km + 3 s', 'evaluation'),
  refusal('syntax error', '2 +', 'syntax'),
  refusal('empty', '   ', 'empty'),
];
