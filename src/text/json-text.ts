import { jsonTextTooDeepAt } from './bounds.js';
import { findPrototypeKey } from './prototype-keys.js';

/**
 * The one ladder for JSON text that arrives from outside (a NATS envelope, a reply): depth on
 * the text first, so nothing recurses over a hostile nesting; then `JSON.parse`; then the
 * prototype keys, which `JSON.parse` keeps as own keys. Each rung says why it refused, and
 * the caller words it for its own context (issue 30: this was written three times, once
 * without the prototype step).
 */
export type JsonTextRead =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly why: 'deep'; readonly offset: number }
  | { readonly ok: false; readonly why: 'syntax' }
  | {
      readonly ok: false;
      readonly why: 'prototype';
      readonly key: '__proto__' | 'constructor';
      readonly path: readonly PropertyKey[];
    };

/** Reads `text` as JSON nested at most `maxDepth` levels, with no prototype key. */
export function readJsonText(text: string, maxDepth: number): JsonTextRead {
  const offset = jsonTextTooDeepAt(text, maxDepth);
  if (offset !== undefined) return { ok: false, why: 'deep', offset };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, why: 'syntax' };
  }
  const found = findPrototypeKey(value);
  if (found !== undefined) return { ok: false, why: 'prototype', key: found.key, path: found.path };
  return { ok: true, value };
}
