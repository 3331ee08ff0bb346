import type { ConstraintSpec, Scalar } from './constraint-schema.js';
import { compileGlob } from './glob.js';
import { isRecord } from '../text/index.js';
import { compilePattern } from './pattern.js';
import { show } from './show.js';

/** Checks one value for an allow rule: `null` when it passes, else why it does not. */
type AllowCheck = (value: unknown, present: boolean) => string | null;

/** Checks a whole data/input object for an allow rule: `null` when it passes. */
type AllowMapCheck = (obj: unknown) => string | null;

/**
 * Compiles a constraint for allow rules: strict, it must prove the value is inside. Types are
 * not coerced ("80" is not a number), strings compare exactly, every item of a list must pass,
 * and an absent key passes unless `required`.
 */
function compileAllowConstraint(spec: ConstraintSpec): AllowCheck {
  const element = compileElement(spec);
  return (value, present) => {
    if (!present) return spec.required === true ? 'is required' : null;
    if (spec.forbidden === true) return 'is not allowed';
    if (!Array.isArray(value))
      return spec.type === 'array' ? `expected a list, got ${show(value)}` : element(value);
    if (spec.type !== undefined && spec.type !== 'array')
      return `expected ${spec.type}, got a list`;
    if (spec.max_items !== undefined && value.length > spec.max_items) {
      return `has ${value.length} items, more than max_items ${spec.max_items}`;
    }
    for (let i = 0; i < value.length; i++) {
      const why = element(value[i]);
      if (why !== null) return `item ${i}: ${why}`;
    }
    return null;
  };
}

/**
 * Compiles a map of constraints. With `additional: false`, keys the map does not list fail
 * (except `ignored` keys, e.g. target selectors inside service data).
 */
export function compileAllowMap(
  label: string,
  specs: Readonly<Record<string, ConstraintSpec>>,
  additional: boolean,
  ignored: ReadonlySet<string> = new Set(),
): AllowMapCheck {
  const entries = Object.entries(specs).map(([k, s]) => [k, compileAllowConstraint(s)] as const);
  return (obj) => {
    if (obj === undefined || obj === null) obj = {};
    if (!isRecord(obj)) return `${label} must be an object, got ${show(obj)}`;
    for (const [key, check] of entries) {
      const present = Object.hasOwn(obj, key);
      const why = check(present ? obj[key] : undefined, present);
      if (why !== null) return `${label}.${key} ${why}`;
    }
    if (!additional) {
      for (const key of Object.keys(obj)) {
        if (!Object.hasOwn(specs, key) && !ignored.has(key)) {
          return `${label}.${key} is not listed (additional_${label}: false)`;
        }
      }
    }
    return null;
  };
}

type ElementCheck = (value: unknown) => string | null;

function compileElement(spec: ConstraintSpec): ElementCheck {
  const scalar = compileScalar(spec);
  const hasScalarOps = scalar !== null;
  const fields = spec.fields ? compileAllowMap('', spec.fields, true) : null;
  return (value) => {
    if (isRecord(value) || Array.isArray(value)) {
      const kind = Array.isArray(value) ? 'array' : 'object';
      if (spec.type !== undefined && spec.type !== kind)
        return `expected ${spec.type}, got ${show(value)}`;
      if (hasScalarOps || (kind === 'array' && fields))
        return `expected a single value, got ${show(value)}`;
      return fields && isRecord(value) ? prefixField(fields(value)) : null;
    }
    if (spec.type === 'object' || fields) return `expected an object, got ${show(value)}`;
    return scalar ? scalar(value) : null;
  };
}

function prefixField(why: string | null): string | null {
  return why === null ? null : `field ${why.replace(/^\./, '')}`;
}

/** The scalar operators, or null when the spec lists none. */
function compileScalar(spec: ConstraintSpec): ElementCheck | null {
  const checks: ElementCheck[] = [];
  if (spec.type !== undefined && spec.type !== 'array' && spec.type !== 'object') {
    checks.push(typeCheck(spec.type));
  }
  if (spec.equals !== undefined) {
    const want = spec.equals;
    checks.push((v) => (v === want ? null : `must equal ${show(want)}, got ${show(v)}`));
  }
  if (spec.enum !== undefined) {
    const allowed = new Set<unknown>(spec.enum);
    const list = spec.enum.map((x: Scalar) => show(x)).join(', ');
    checks.push((v) => (allowed.has(v) ? null : `must be one of ${list}, got ${show(v)}`));
  }
  // Lengths first: cheap, and a value too long for the rule never reaches a glob or pattern.
  pushLength(spec, checks);
  if (spec.glob !== undefined) {
    const res = spec.glob.map((g) => compileGlob(g));
    const list = spec.glob.join(', ');
    checks.push((v) =>
      typeof v === 'string' && res.some((re) => re.test(v))
        ? null
        : `must match ${list}, got ${show(v)}`,
    );
  }
  if (spec.pattern !== undefined) {
    const re = compilePattern(spec.pattern);
    const src = spec.pattern;
    checks.push((v) =>
      typeof v === 'string' && re.test(v) ? null : `must match /${src}/, got ${show(v)}`,
    );
  }
  pushRange(spec, checks);
  if (checks.length === 0) return null;
  return (v) => {
    for (const check of checks) {
      const why = check(v);
      if (why !== null) return why;
    }
    return null;
  };
}

function pushRange(spec: ConstraintSpec, checks: ElementCheck[]): void {
  const { min, max } = spec;
  if (min === undefined && max === undefined) return;
  checks.push((v) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) return `expected a number, got ${show(v)}`;
    if (min !== undefined && v < min) return `${v} is below min ${min}`;
    if (max !== undefined && v > max) return `${v} is above max ${max}`;
    return null;
  });
}

function pushLength(spec: ConstraintSpec, checks: ElementCheck[]): void {
  const { min_length: lo, max_length: hi } = spec;
  if (lo === undefined && hi === undefined) return;
  checks.push((v) => {
    if (typeof v !== 'string') return `expected a string, got ${show(v)}`;
    if (lo !== undefined && v.length < lo) return `is shorter than min_length ${lo}`;
    if (hi !== undefined && v.length > hi) return `is longer than max_length ${hi}`;
    return null;
  });
}

function typeCheck(type: 'string' | 'number' | 'integer' | 'boolean'): ElementCheck {
  const ok: (v: unknown) => boolean =
    type === 'integer'
      ? (v) => Number.isInteger(v)
      : type === 'number'
        ? (v) => typeof v === 'number' && Number.isFinite(v)
        : (v) => typeof v === type;
  return (v) => (ok(v) ? null : `expected ${type}, got ${show(v)}`);
}
