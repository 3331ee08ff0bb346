import type { ConfigIssue } from './errors.js';
import { isPlainObject } from '../text/index.js';

/** Marks a key a layer clears (an empty env var): the default applies again. */
export const UNSET: unique symbol = Symbol('caesar.config.unset');

/** One source of raw (snake_case) settings: the YAML file, env vars or overrides. */
export interface ConfigLayer {
  /** Partial raw config; {@link UNSET} marks keys this layer clears. */
  readonly value: Readonly<Record<string, unknown>>;
  /** Problems found while reading the layer (syntax, unknown env vars, bad numbers). */
  readonly issues: readonly ConfigIssue[];
  /** Where the value at `path` came from; `isKey` points at the key rather than the value. */
  readonly sourceOf: (path: readonly PropertyKey[], isKey: boolean) => string;
  /**
   * How `caesar config show` names the source of the value at `path`, when that differs
   * from `sourceOf` (`env CAESAR_BUS__TOKEN_FILE -> /run/secrets/nats_token`).
   */
  readonly originOf?: (path: readonly PropertyKey[]) => string;
}

/** The value at `path`, or undefined. */
export function getIn(value: unknown, path: readonly PropertyKey[]): unknown {
  let node = value;
  for (const key of path) {
    if (Array.isArray(node) && typeof key === 'number') node = node[key];
    else if (isPlainObject(node) && typeof key === 'string' && Object.hasOwn(node, key)) {
      node = node[key];
    } else return undefined;
  }
  return node;
}

/** A layer with one fixed source name, such as the overrides from CLI flags. */
export function objectLayer(source: string, value: unknown): ConfigLayer {
  if (value === undefined) return { value: {}, issues: [], sourceOf: () => source };
  if (!isPlainObject(value)) {
    return {
      value: {},
      issues: [{ source, path: '', message: 'expected a map of settings' }],
      sourceOf: () => source,
    };
  }
  return { value: dropUndefined(value), issues: [], sourceOf: () => source };
}

/** A copy of a map without `undefined` values (recursively through maps). */
function dropUndefined(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v !== undefined) out[key] = isPlainObject(v) ? dropUndefined(v) : v;
  }
  return out;
}

/**
 * A copy of a map with `null` values (YAML `key:` with nothing after it) turned into
 * `undefined`: the key counts as not set, but an unknown key is still reported.
 */
export function nullAsUnset(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = v === null ? undefined : isPlainObject(v) ? nullAsUnset(v) : v;
  }
  return out;
}

/** A copy without {@link UNSET} markers: what the layer itself sets, for validation. */
export function withoutUnset(value: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v !== UNSET) out[key] = isPlainObject(v) ? withoutUnset(v) : v;
  }
  return out;
}

/** Deep-merges layers, later ones winning; maps merge, lists and scalars replace. */
export function mergeLayers(
  values: readonly Readonly<Record<string, unknown>>[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const value of values) mergeInto(out, value);
  return out;
}

function mergeInto(
  target: Record<string, unknown>,
  source: Readonly<Record<string, unknown>>,
): void {
  for (const [key, v] of Object.entries(source)) {
    if (v === UNSET || v === undefined) {
      delete target[key];
    } else if (isPlainObject(v)) {
      const existing = target[key];
      const next = isPlainObject(existing) ? existing : {};
      mergeInto(next, v);
      target[key] = next;
    } else {
      target[key] = v;
    }
  }
}
