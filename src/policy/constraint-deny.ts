import type { ConstraintSpec, Scalar } from './constraint-schema.js';
import { compileGlob } from './glob.js';
import { isRecord } from '../text/index.js';
import { compilePattern } from './pattern.js';

/** Whether one value satisfies a deny rule's constraint. */
type DenyMatch = (value: unknown, present: boolean) => boolean;

/** Whether a whole data/input object satisfies every constraint of a deny rule. */
type DenyMapMatch = (obj: unknown) => boolean;

/**
 * Compiles a constraint for deny rules: lenient, it matches unless the value is provably
 * outside. Values are read the way Home Assistant coerces them (strings trimmed and compared
 * case-insensitively, "80" and "8_0" as numbers), a list matches when any item matches, and a
 * value it cannot compare (an object where a scalar is expected, "abc" for min/max) matches.
 * An absent key never matches. `required`/`forbidden` are refused for deny rules at load.
 */
function compileDenyConstraint(spec: ConstraintSpec): DenyMatch {
  const element = compileElement(spec);
  return (value, present) => {
    if (!present) return false;
    if (!Array.isArray(value)) return spec.type === 'array' ? false : element(value);
    if (spec.max_items !== undefined && value.length > spec.max_items) return false;
    if (!hasElementOps(spec)) return spec.type === undefined || spec.type === 'array';
    return value.some((item) => element(item));
  };
}

/** Compiles a deny rule's constraint map: every listed key must match. */
export function compileDenyMap(specs: Readonly<Record<string, ConstraintSpec>>): DenyMapMatch {
  const entries = Object.entries(specs).map(([k, s]) => [k, compileDenyConstraint(s)] as const);
  return (obj) => {
    if (obj === undefined || obj === null) obj = {};
    if (!isRecord(obj)) return entries.length > 0;
    for (const [key, match] of entries) {
      const present = Object.hasOwn(obj, key);
      if (!match(present ? obj[key] : undefined, present)) return false;
    }
    return true;
  };
}

function hasElementOps(spec: ConstraintSpec): boolean {
  return (
    (spec.type !== undefined && spec.type !== 'array') ||
    spec.equals !== undefined ||
    spec.enum !== undefined ||
    spec.glob !== undefined ||
    spec.pattern !== undefined ||
    spec.min !== undefined ||
    spec.max !== undefined ||
    spec.min_length !== undefined ||
    spec.max_length !== undefined ||
    spec.fields !== undefined
  );
}

type ElementMatch = (value: unknown) => boolean;

function compileElement(spec: ConstraintSpec): ElementMatch {
  const scalar = compileScalar(spec);
  const fields = spec.fields ? compileDenyMap(spec.fields) : null;
  return (value) => {
    if (isRecord(value)) {
      if (scalar !== null) return true;
      return fields ? fields(value) : spec.type === undefined || spec.type === 'object';
    }
    if (Array.isArray(value)) return scalar !== null || fields !== null;
    if (fields !== null || spec.type === 'object') return false;
    return scalar === null ? true : scalar(value);
  };
}

function compileScalar(spec: ConstraintSpec): ElementMatch | null {
  const checks: ElementMatch[] = [];
  if (spec.type !== undefined && spec.type !== 'array' && spec.type !== 'object') {
    checks.push(lenientType(spec.type));
  }
  if (spec.equals !== undefined) checks.push(literalMatch([spec.equals]));
  if (spec.enum !== undefined) checks.push(literalMatch(spec.enum));
  // Lengths before globs and patterns: a value outside the lengths never reaches them.
  if (spec.min_length !== undefined || spec.max_length !== undefined) {
    const lo = spec.min_length ?? 0;
    const hi = spec.max_length ?? Infinity;
    checks.push((v) => String(v).length >= lo && String(v).length <= hi);
  }
  if (spec.glob !== undefined) {
    const res = spec.glob.map((g) => compileGlob(g, { ignoreCase: true }));
    checks.push((v) => res.some((re) => re.test(text(v))));
  }
  if (spec.pattern !== undefined) {
    const re = compilePattern(spec.pattern, { ignoreCase: true });
    checks.push((v) => re.test(text(v)));
  }
  if (spec.min !== undefined || spec.max !== undefined) checks.push(range(spec.min, spec.max));
  if (checks.length === 0) return null;
  return (v) => checks.every((check) => check(v));
}

function literalMatch(literals: readonly Scalar[]): ElementMatch {
  const strings = new Set(literals.map((l) => String(l).trim().toLowerCase()));
  const numbers = new Set(literals.filter((l) => typeof l !== 'string').map((l) => Number(l)));
  return (v) => strings.has(text(v)) || (numbers.size > 0 && numbers.has(toNumber(v)));
}

function range(min: number | undefined, max: number | undefined): ElementMatch {
  return (v) => {
    const n = toNumber(v);
    if (Number.isNaN(n)) return true;
    return (min === undefined || n >= min) && (max === undefined || n <= max);
  };
}

function lenientType(type: 'string' | 'number' | 'integer' | 'boolean'): ElementMatch {
  if (type === 'string') return (v) => v !== null;
  if (type === 'boolean') {
    return (v) => typeof v === 'boolean' || typeof v === 'number' || BOOLEAN_WORDS.has(text(v));
  }
  return type === 'integer'
    ? (v) => Number.isInteger(toNumber(v))
    : (v) => !Number.isNaN(toNumber(v));
}

const BOOLEAN_WORDS = new Set([
  'true',
  'false',
  'on',
  'off',
  'yes',
  'no',
  'enable',
  'disable',
  '1',
  '0',
]);

/** A value as a comparable string: trimmed and lowercased. */
function text(v: unknown): string {
  return String(v).trim().toLowerCase();
}

/**
 * A decimal number. Unambiguous on purpose (after the digits, only `.` or the end): the old
 * `\d+\.?\d*` backtracked quadratically, and 30,000 digits and a letter took 3.5 s.
 */
const DECIMAL_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/;

/**
 * A value as Home Assistant (Python `float()`) would read a number: booleans are 0/1,
 * strings are trimmed, `_` between digits is dropped, `inf`/`nan` are understood.
 * NaN means "not a number as far as we can tell".
 */
function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v !== 'string') return NaN;
  const s = v
    .trim()
    .toLowerCase()
    .replace(/(\d)_(?=\d)/g, '$1');
  if (/^[+-]?(inf|infinity)$/.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (!DECIMAL_RE.test(s)) return NaN;
  return Number(s);
}
