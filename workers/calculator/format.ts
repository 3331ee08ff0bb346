import type { MathJsInstance, Unit } from 'mathjs';
import type { CalcResult } from './schema.js';
import { ExpressionRejectedError } from './screen.js';

/** Significant digits in `result`. */
const RESULT_PRECISION = 14;
/** Longest `result` string; a longer one is refused rather than returned. */
const MAX_RESULT_LENGTH = 2000;

/**
 * Turns an evaluated mathjs value into the calculator's answer. Numbers must be finite;
 * units report their value in the unit shown; complex numbers and small matrices are
 * returned as formatted strings. Anything else (functions, booleans, undefined) is refused.
 */
export function formatResult(math: MathJsInstance, expression: string, value: unknown): CalcResult {
  if (typeof value === 'number') return formatNumber(math, expression, value);
  if (math.isUnit(value)) return formatUnit(math, expression, value);
  if (math.isComplex(value) && value.im === 0) return formatNumber(math, expression, value.re);
  if (math.isComplex(value) || math.isMatrix(value)) {
    if (!isFiniteValue(math, value)) throw notFinite();
    const result = show(math, value);
    return { expression, result, value: result };
  }
  throw new ExpressionRejectedError(
    'result',
    'the expression does not evaluate to a number, a quantity with a unit, or a matrix',
  );
}

function formatNumber(math: MathJsInstance, expression: string, value: number): CalcResult {
  if (!Number.isFinite(value)) throw notFinite();
  return { expression, result: show(math, value), value };
}

function formatUnit(math: MathJsInstance, expression: string, quantity: Unit): CalcResult {
  const result = show(math, quantity);
  // mathjs formats a simplified unit with the best prefix ("2.3 km"); report the value in
  // exactly the unit shown, at full precision. A bare unit ("km") has no number in front.
  const valueless = (quantity as unknown as { value: unknown }).value === null;
  const unit = valueless ? result : result.slice(result.indexOf(' ') + 1);
  if (!isFiniteValue(math, quantity)) throw notFinite();
  const value = valueless ? 1 : quantity.toNumber(unit);
  if (!Number.isFinite(value)) throw notFinite();
  return { expression, result, value, unit };
}

/** True when every number inside a complex number, unit or (nested) matrix is finite. */
function isFiniteValue(math: MathJsInstance, value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (math.isComplex(value)) return Number.isFinite(value.re) && Number.isFinite(value.im);
  if (math.isUnit(value)) {
    const inner = (value as unknown as { value: unknown }).value;
    const powers = value.units.every((u) => Number.isFinite(u.power));
    return powers && (inner === null || isFiniteValue(math, inner));
  }
  if (math.isMatrix(value)) return isFiniteValue(math, value.toArray());
  if (Array.isArray(value)) return value.every((item) => isFiniteValue(math, item));
  return false;
}

function show(math: MathJsInstance, value: unknown): string {
  const result = math.format(value, { precision: RESULT_PRECISION });
  if (result.length > MAX_RESULT_LENGTH) {
    throw new ExpressionRejectedError(
      'result',
      `the result is longer than ${MAX_RESULT_LENGTH} characters`,
    );
  }
  return result;
}

function notFinite(): ExpressionRejectedError {
  return new ExpressionRejectedError(
    'result',
    'the result is not a finite number (it overflows, or is undefined such as 0/0)',
  );
}
