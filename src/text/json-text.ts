import { jsonTextTooDeepAt, MAX_NESTING_DEPTH } from './bounds.js';
import { formatFieldPath } from './format-path.js';
import { findPrototypeKey } from './prototype-keys.js';

/**
 * The one ladder for JSON text that arrives from outside the process (an HTTP body, a NATS
 * envelope, a reply, a backend's answer, a model's arguments, a file, a child's stdout):
 * depth on the text first, so nothing recurses over a hostile nesting; then `JSON.parse`;
 * then the prototype keys, which `JSON.parse` keeps as own keys. Each rung says why it
 * refused, and the caller words it for its own context, or takes `jsonRefusal`'s words
 * (issue 30: this was written three times, once without the prototype step).
 *
 * `JSON.parse` itself is called here and nowhere else in src/ and workers/ (eslint's
 * `no-restricted-syntax`, test/unit/text/one-json-ladder.test.ts), but where a module
 * parses text it made itself a line earlier, which says why beside the call.
 */
export type JsonTextRead = { readonly ok: true; readonly value: unknown } | JsonTextRefusal;

/** Why a JSON text was refused: too deep (where), not JSON (the parser's words), a prototype key. */
export type JsonTextRefusal =
  | { readonly ok: false; readonly why: 'deep'; readonly offset: number; readonly max: number }
  | { readonly ok: false; readonly why: 'syntax'; readonly message: string }
  | {
      readonly ok: false;
      readonly why: 'prototype';
      readonly key: '__proto__' | 'constructor';
      readonly path: readonly PropertyKey[];
    };

/**
 * Reads `text` as JSON nested at most `maxDepth` levels, with no prototype key.
 * @default maxDepth MAX_NESTING_DEPTH (64)
 */
export function readJsonText(text: string, maxDepth: number = MAX_NESTING_DEPTH): JsonTextRead {
  const offset = jsonTextTooDeepAt(text, maxDepth);
  if (offset !== undefined) return { ok: false, why: 'deep', offset, max: maxDepth };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, why: 'syntax', message: err instanceof Error ? err.message : String(err) };
  }
  const found = findPrototypeKey(value);
  if (found !== undefined) return { ok: false, why: 'prototype', key: found.key, path: found.path };
  return { ok: true, value };
}

/**
 * The value of `text` read through the ladder, or `undefined` when a rung refused it (JSON
 * has no `undefined`, so the two never mix): for readers that fall back to something else
 * (plain text, an empty list) whatever the reason.
 */
export function readJsonValue(text: string, maxDepth: number = MAX_NESTING_DEPTH): unknown {
  const read = readJsonText(text, maxDepth);
  return read.ok ? read.value : undefined;
}

/**
 * A refusal in words that follow "is": `not valid JSON (Unexpected token …)`, `nested
 * deeper than 64 levels (at offset 70)`, `JSON with a \`__proto__\` key at a[0], which could
 * reach an object's prototype`.
 */
export function jsonRefusal(refusal: JsonTextRefusal): string {
  if (refusal.why === 'syntax') return `not valid JSON (${refusal.message})`;
  if (refusal.why === 'deep') {
    return `nested deeper than ${refusal.max} levels (at offset ${refusal.offset})`;
  }
  const key =
    refusal.key === '__proto__' ? 'a `__proto__` key' : 'a `constructor` key holding `prototype`';
  return `JSON with ${key} at ${formatFieldPath(refusal.path)}, which could reach an object's prototype`;
}

/**
 * `value` as JSON text for a message or a prompt, never throwing: `absent` when JSON has no
 * text for it (`undefined`, a function), `unwritable` when it cannot be written (a cycle, a
 * BigInt).
 */
export function jsonTextOf(value: unknown, absent: string, unwritable: string = absent): string {
  try {
    return JSON.stringify(value) ?? absent;
  } catch {
    return unwritable;
  }
}
