import { Buffer } from 'node:buffer';
import { canonicalJson, type JsonValue } from './canonical.js';
import type { ClampLimits } from './limits.js';
// the rules' own files, not the text index (which reaches js-yaml and zod): the writer
// thread runs this module (ADR 0048)
import { isRecord } from '../text/records.js';
import { redactText } from '../text/redact-text.js';
import { isSecretKey, REDACTED } from '../text/secret-key.js';

/**
 * Clamp + redaction of payloads. Every payload goes through `clampPayload` exactly once, in
 * the writer, before it is hashed and stored: secrets are replaced, strings and nesting are
 * capped, non-JSON values are made JSON, and the result is canonical JSON no larger than
 * `maxPayloadBytes`. Every cut leaves a marker saying what was cut.
 */

interface ClampResult {
  /** Canonical JSON of the stored payload. */
  readonly json: string;
  /** True when any string, collection or the whole payload was cut. */
  readonly clamped: boolean;
}

/** Caps used by one sanitising pass; the first pass uses the configured limits. */
interface Pass {
  readonly stringChars: number;
  readonly items: number;
  readonly keys: number;
  readonly depth: number;
}

/** Progressively tighter passes tried when the payload is still over `maxPayloadBytes`. */
const SHRINK_STEPS: readonly Omit<Pass, 'depth'>[] = [
  { stringChars: 4096, items: 256, keys: 256 },
  { stringChars: 1024, items: 64, keys: 64 },
  { stringChars: 256, items: 16, keys: 32 },
  { stringChars: 64, items: 4, keys: 16 },
];

/** Redaction looks this far past a string cut so a secret straddling the cut is still caught. */
const REDACT_MARGIN = 4096;

export function truncationMarker(total: number): string {
  return `… [truncated, ${total} chars total]`;
}

function clampString(s: string, max: number, state: { clamped: boolean }): string {
  if (s.length <= max) return redactText(s);
  state.clamped = true;
  const head = redactText(s.slice(0, max + REDACT_MARGIN));
  let cut = Math.min(max, head.length);
  const code = head.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1; // never split a surrogate pair
  return head.slice(0, cut) + truncationMarker(s.length);
}

interface WalkState {
  clamped: boolean;
  /** An object key like "7" makes V8 reorder keys, so JSON.stringify is not canonical. */
  indexKeys: boolean;
  readonly seen: Set<object>;
}

function isArrayIndexKey(key: string): boolean {
  const c = key.charCodeAt(0);
  return c >= 48 && c <= 57 && /^(?:0|[1-9][0-9]{0,9})$/.test(key);
}

function sanitize(value: unknown, pass: Pass, depth: number, state: WalkState): JsonValue {
  switch (typeof value) {
    case 'string':
      return clampString(value, pass.stringChars, state);
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'boolean':
      return value;
    case 'bigint':
      return value.toString();
    case 'object':
      return value === null ? null : sanitizeObject(value, pass, depth, state);
    default:
      return null; // undefined, function, symbol: JSON has no such value
  }
}

function sanitizeObject(value: object, pass: Pass, depth: number, state: WalkState): JsonValue {
  if (state.seen.has(value)) return '[circular]';
  if (ArrayBuffer.isView(value)) return `[binary, ${value.byteLength} bytes]`;
  if (value instanceof Error) return sanitizeError(value, pass, depth, state);
  if (!Array.isArray(value) && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return sanitize((value as { toJSON(): unknown }).toJSON(), pass, depth, state);
  }
  if (depth >= pass.depth) {
    state.clamped = true;
    return `[truncated: nested deeper than ${pass.depth} levels]`;
  }
  state.seen.add(value);
  try {
    if (Array.isArray(value)) return sanitizeArray(value, pass, depth, state);
    if (value instanceof Map)
      return sanitizeRecord(
        Object.fromEntries(value as Map<unknown, unknown>) as Record<string, unknown>,
        pass,
        depth,
        state,
      );
    if (value instanceof Set) return sanitizeArray([...value], pass, depth, state);
    return sanitizeRecord(value as Record<string, unknown>, pass, depth, state);
  } finally {
    state.seen.delete(value);
  }
}

function sanitizeError(err: Error, pass: Pass, depth: number, state: WalkState): JsonValue {
  const code = (err as { code?: unknown }).code;
  const plain = { name: err.name, message: err.message, ...(code === undefined ? {} : { code }) };
  return sanitizeRecord(plain, pass, depth, state);
}

function sanitizeArray(arr: readonly unknown[], pass: Pass, depth: number, state: WalkState) {
  const n = Math.min(arr.length, pass.items);
  const out: JsonValue[] = new Array<JsonValue>(n);
  for (let i = 0; i < n; i++) out[i] = sanitize(arr[i], pass, depth + 1, state);
  if (arr.length > n) {
    state.clamped = true;
    out.push(`… [truncated, ${arr.length} items total]`);
  }
  return out;
}

function sanitizeRecord(
  obj: Record<string, unknown>,
  pass: Pass,
  depth: number,
  state: WalkState,
): JsonValue {
  const out: Record<string, JsonValue> = {};
  const keys = Object.keys(obj).filter((k) => isJsonMember(obj[k]));
  keys.sort();
  const n = Math.min(keys.length, pass.keys);
  for (let i = 0; i < n; i++) {
    const key = keys[i] as string;
    const safeKey = clampString(key, pass.stringChars, state);
    if (!state.indexKeys && isArrayIndexKey(safeKey)) state.indexKeys = true;
    out[safeKey] = isSecretKey(key) ? REDACTED : sanitize(obj[key], pass, depth + 1, state);
  }
  if (keys.length > n) {
    state.clamped = true;
    out['…'] = `[truncated, ${keys.length} keys total]`;
  }
  return out;
}

/** JSON.stringify drops these members from objects; so do we. */
function isJsonMember(v: unknown): boolean {
  return v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';
}

function runPass(payload: unknown, pass: Pass): { json: string; clamped: boolean } {
  const state: WalkState = { clamped: false, indexKeys: false, seen: new Set() };
  const clean = sanitize(payload, pass, 0, state);
  // Objects are built with sorted keys, so native JSON.stringify is canonical unless some
  // key is an array index (V8 puts those first, in numeric order).
  const json = state.indexKeys ? canonicalJson(clean) : JSON.stringify(clean);
  return { json, clamped: state.clamped };
}

function withMarker(
  payload: unknown,
  pass: Pass,
  limits: ClampLimits,
  originalBytes: number,
): string {
  const marker = {
    reason: `payload exceeded ${limits.maxPayloadBytes} bytes`,
    payload_bytes: originalBytes,
    strings_cut_at_chars: pass.stringChars,
    collections_cut_at_items: pass.items,
  };
  const base = isRecord(payload) ? payload : { value: payload };
  return runPass({ ...base, _clamped: marker }, pass).json;
}

/** Last resort: keep only the top-level key names and say everything else was dropped. */
function skeleton(payload: unknown, limits: ClampLimits, originalBytes: number): string {
  const keys = isRecord(payload) ? Object.keys(payload).sort().slice(0, 32) : [];
  return canonicalJson({
    _clamped: {
      reason: `payload exceeded ${limits.maxPayloadBytes} bytes even after cutting`,
      payload_bytes: originalBytes,
      dropped: 'all values',
      keys: keys.map((k) => redactText(k.slice(0, 64))),
    },
  });
}

const utf8Bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** Redacts, clamps and canonicalises one payload within `limits`. */
export function clampPayload(payload: unknown, limits: ClampLimits): ClampResult {
  const first: Pass = {
    stringChars: limits.maxStringChars,
    items: Infinity,
    keys: Infinity,
    depth: limits.maxDepth,
  };
  const initial = runPass(payload, first);
  // Fast path: a short string cannot exceed the byte cap (at most 3 bytes per UTF-16 unit).
  if (initial.json.length * 3 <= limits.maxPayloadBytes) return initial;
  const originalBytes = utf8Bytes(initial.json);
  if (originalBytes <= limits.maxPayloadBytes) return initial;
  for (const step of SHRINK_STEPS) {
    const pass: Pass = {
      ...step,
      stringChars: Math.min(step.stringChars, limits.maxStringChars),
      depth: limits.maxDepth,
    };
    const json = withMarker(payload, pass, limits, originalBytes);
    if (utf8Bytes(json) <= limits.maxPayloadBytes) return { json, clamped: true };
  }
  return { json: skeleton(payload, limits, originalBytes), clamped: true };
}
