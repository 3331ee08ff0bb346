/**
 * mathjs's decimal handling of JavaScript numbers, for the quick path (quick.ts), which runs
 * without mathjs: `format(value, { precision })` in its default `auto` notation, and the
 * `round` and `floor` its `mod` is built on. Ported from mathjs 15 `lib/esm/utils/number.js`
 * (`splitNumber`, `roundDigits`, `toPrecision`, `toExponential`, `toFixed`, `nearlyEqual`)
 * and `lib/esm/function/arithmetic/{round,floor}.js` (Apache-2.0, as this project): digits
 * are those of `String(value)`, rounded half up. Proven the same as mathjs's by
 * test/unit/calculator/quick.test.ts.
 */

interface Digits {
  readonly sign: string;
  /** Significant digits, no leading or trailing zeros (a zero value is `[0]`). */
  readonly coefficients: number[];
  /** Decimal exponent of the first coefficient. */
  readonly exponent: number;
}

const NUMBER_TEXT = /^(-?)(\d+\.?\d*)(e([+-]?\d+))?$/;

function splitNumber(value: number): Digits {
  const match = NUMBER_TEXT.exec(String(value).toLowerCase());
  if (match === null) throw new SyntaxError(`invalid number ${value}`);
  const digits = match[2]!;
  let exponent = Number(match[4] ?? '0');
  const dot = digits.indexOf('.');
  exponent += dot !== -1 ? dot - 1 : digits.length - 1;
  const plain = digits.replace('.', '');
  const leading = /^0*/.exec(plain)![0].length;
  exponent -= leading;
  const coefficients = Array.from(plain.slice(leading).replace(/0*$/, ''), Number);
  if (coefficients.length === 0) {
    coefficients.push(0);
    exponent += 1;
  }
  return { sign: match[1]!, coefficients, exponent };
}

/** Rounds half up to `precision` significant digits (below 1: to zeros before the first). */
function roundDigits(split: Digits, precision: number): Digits {
  const c = split.coefficients.slice();
  let exponent = split.exponent;
  for (; precision <= 0; precision += 1) {
    c.unshift(0);
    exponent += 1;
  }
  if (c.length > precision) {
    const removed = c.splice(precision);
    if (removed[0]! >= 5) {
      let i = precision - 1;
      c[i]! += 1;
      while (c[i] === 10) {
        c.pop();
        if (i === 0) {
          c.unshift(0);
          exponent += 1;
          i += 1;
        }
        i -= 1;
        c[i]! += 1;
      }
    }
  }
  return { sign: split.sign, coefficients: c, exponent };
}

const zeros = (n: number): number[] => (n > 0 ? new Array<number>(n).fill(0) : []);

function toExponential(rounded: Digits, precision: number): string {
  const c = rounded.coefficients.concat(zeros(precision - rounded.coefficients.length));
  const first = c.shift()!;
  const e = rounded.exponent;
  return `${rounded.sign}${first}${c.length > 0 ? `.${c.join('')}` : ''}e${e >= 0 ? '+' : ''}${e}`;
}

function toPrecision(value: number, precision: number): string {
  const rounded = roundDigits(splitNumber(value), precision);
  const e = rounded.exponent;
  if (e < -3 || e >= 5) return toExponential(rounded, precision);
  let c: (number | string)[] = rounded.coefficients;
  if (c.length < precision) c = c.concat(zeros(precision - c.length));
  c = c.concat(zeros(e - c.length + 1));
  c = zeros(-e).concat(c as number[]);
  const dot = e > 0 ? e : 0;
  if (dot < c.length - 1) c.splice(dot + 1, 0, '.');
  return rounded.sign + c.join('');
}

/** Plain decimal text: optional sign, digits, optional fraction, no exponent. */
const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/** `math.format(value, { precision })` for a finite number. */
export function formatNumber(value: number, precision: number): string {
  // The common case at once: a value from 0.001 to 99999.99... whose shortest text has at
  // most `precision` significant digits is left as it is (padding and rounding change
  // nothing, and the zeros padded on are taken off again).
  const text = String(value);
  const magnitude = Math.abs(value);
  if (
    (value === 0 || (magnitude >= 0.001 && magnitude < 1e5)) &&
    PLAIN_DECIMAL.test(text) &&
    text.replace(/^-?[0.]*/, '').replace('.', '').length <= precision
  ) {
    return text;
  }
  return toPrecision(value, precision).replace(
    /((\.\d*?)(0+))($|e)/,
    (_m, _all: string, digits: string, _zeros: string, e: string) =>
      digits !== '.' ? digits + e : e,
  );
}

/** mathjs's `toFixed(value, decimals)`: `decimals` digits after the point, half up. */
function toFixed(value: number, decimals: number): string {
  const split = splitNumber(value);
  const rounded = roundDigits(split, split.exponent + 1 + decimals);
  let c: (number | string)[] = rounded.coefficients;
  let p = rounded.exponent + 1;
  const pp = p + decimals;
  if (c.length < pp) c = c.concat(zeros(pp - c.length));
  if (p < 0) {
    c = zeros(-p + 1).concat(c as number[]);
    p = 1;
  }
  if (p < c.length) c.splice(p, 0, p === 0 ? '0.' : '.');
  return rounded.sign + c.join('');
}

/** mathjs's default tolerances (`config.relTol`, `config.absTol`). */
const REL_TOL = 1e-12;
const ABS_TOL = 1e-15;
/** `toExponent(REL_TOL)` in mathjs's round: the decimals its tolerance stands for. */
const TOL_DECIMALS = 12;

function nearlyEqual(a: number, b: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return false;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
  if (a === b) return true;
  return Math.abs(a - b) <= Math.max(REL_TOL * Math.max(Math.abs(a), Math.abs(b)), ABS_TOL);
}

/** mathjs's plain `roundNumber`: `decimals` must be a whole number from 0 to 15. */
function roundNumber(value: number, decimals: number): number {
  if (!Number.isFinite(value)) return value; // mathjs: toFixed gives String(value)
  return parseFloat(toFixed(value, decimals));
}

/** mathjs's `round(x, n)` for numbers, n a whole number from 0 to 15 (else undefined). */
export function mathRound(x: number, n = 0): number | undefined {
  if (!Number.isInteger(n) || n < 0 || n > 15) return undefined;
  if (n >= TOL_DECIMALS) return roundNumber(x, n);
  const xEpsilon = roundNumber(x, TOL_DECIMALS);
  return roundNumber(nearlyEqual(x, xEpsilon) ? xEpsilon : x, n);
}

/** mathjs's `floor(x)` for numbers: a value within its tolerance of an integer is that. */
function mathFloor(x: number): number {
  const f = Math.floor(x);
  const r = mathRound(x)!;
  if (f === r) return f;
  return nearlyEqual(x, r) && !nearlyEqual(x, f) ? r : f;
}

/** mathjs's `mod(x, y)` for numbers (`x % y` and `x mod y`). */
export function mathMod(x: number, y: number): number {
  return y === 0 ? x : x - y * mathFloor(x / y);
}
