import { Buffer } from 'node:buffer';
import { isSecretKey, REDACTED, redactText } from '../../text/index.js';
import type { ToolRecord, ToolRecordLabel } from './types.js';

/**
 * What one turn stores: secrets redacted with the audit log's rules (`redactText`,
 * `isSecretKey`), then capped, so one huge message or tool result cannot bloat the file.
 * Every cut keeps the head, ends with a marker saying how long the whole was, and leaves
 * well-formed text (no split or lone surrogates) and valid JSON.
 */

/** Longest turn content kept, in characters (UTF-16 code units), before the marker. */
export const MAX_CONTENT_CHARS = 16_384;
/** Largest stored tool record, in bytes of its JSON (UTF-8). */
export const MAX_TOOL_RECORD_BYTES = 65_536;
/** Longest tool name, decision id or outcome kept. */
const MAX_LABEL_CHARS = 256;
const TOOL_PARTS = ['input', 'result', 'error'] as const;

/** The suffix of every cut: `… [truncated, 1048576 chars total]`. */
export function truncationMarker(total: number, unit: 'chars' | 'bytes of JSON'): string {
  return `… [truncated, ${total} ${unit} total]`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const utf8Bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** The first `max` code units of `s`, one fewer if the cut would split a surrogate pair. */
function head(s: string, max: number): string {
  if (s.length <= max) return s;
  const code = s.charCodeAt(max - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** Redaction looks this far past a cut so a secret straddling the cut is still caught. */
const REDACT_MARGIN = 4096;

/**
 * Text redacted, then capped at `max` characters plus the marker (which counts the text as
 * given); lone surrogates become U+FFFD. Only the head that can be kept is redacted.
 */
export function capText(text: string, max = MAX_CONTENT_CHARS): string {
  const scanned = text.length > max + REDACT_MARGIN ? text.slice(0, max + REDACT_MARGIN) : text;
  const redacted = redactText(scanned);
  const kept = head(redacted, max).replace(LONE_SURROGATE, '\uFFFD');
  return redacted.length <= max && scanned === text
    ? kept
    : kept + truncationMarker(text.length, 'chars');
}

function capLabel(s: string): string {
  const text = String(s);
  const kept = head(text, MAX_LABEL_CHARS).replace(LONE_SURROGATE, '\uFFFD');
  return text.length <= MAX_LABEL_CHARS ? kept : kept + '…';
}

/**
 * Plain data for what JSON cannot say (bigints as strings, errors as name/message/code), and
 * redaction on the way: a value under a secret-looking key is replaced, strings are redacted.
 */
function replacer(key: string, value: unknown): unknown {
  if (key !== '' && isSecretKey(key)) return REDACTED;
  if (typeof value === 'string') return redactText(value);
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return { name: value.name, message: value.message, ...(code === undefined ? {} : { code }) };
  }
  return value;
}

/** JSON text of a value, undefined when it has none; never throws (cycles, deep nesting). */
function toJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value, replacer);
  } catch (err) {
    return JSON.stringify(
      `[not serialisable: ${err instanceof Error ? err.message : String(err)}]`,
    );
  }
}

/**
 * A JSON string literal of at most `room` bytes: the head of `json` and the marker. Cut
 * JSON is no longer JSON, so it is kept as text, escaped once more.
 */
function preview(json: string, totalBytes: number, room: number): string {
  const marker = truncationMarker(totalBytes, 'bytes of JSON');
  const markerBytes = utf8Bytes(JSON.stringify(marker));
  let n = Math.min(json.length, Math.max(0, room - markerBytes));
  for (let i = 0; i < 32 && n > 0; i++) {
    const literal = JSON.stringify(head(json, n) + marker);
    const size = utf8Bytes(literal);
    if (size <= room) return literal;
    const estimate = Math.floor((n * (room - markerBytes)) / (size - markerBytes));
    n = Math.max(0, Math.min(n - 1, estimate));
  }
  return JSON.stringify(marker);
}

interface Part {
  readonly key: (typeof TOOL_PARTS)[number];
  json: string;
  bytes: number;
}

/**
 * The JSON stored for a tool record, at most `maxBytes`. When the payloads are too big,
 * each gets a fair share of the room, smallest first, so a small `input` survives whole
 * beside a huge `result`; a payload over its share becomes a string preview with a marker.
 */
export function encodeToolRecord(record: ToolRecord, maxBytes = MAX_TOOL_RECORD_BYTES): string {
  const label =
    `{"name":${JSON.stringify(capLabel(record.name))}` +
    `,"decision_id":${JSON.stringify(capLabel(record.decision_id))}` +
    `,"outcome":${JSON.stringify(capLabel(record.outcome))}` +
    (record.call_id === undefined ? '' : `,"call_id":${JSON.stringify(capLabel(record.call_id))}`) +
    (record.label === undefined ? '' : `,"label":${JSON.stringify(storedLabel(record.label))}`);
  const parts: Part[] = [];
  for (const key of TOOL_PARTS) {
    const json = record[key] === undefined ? undefined : toJson(record[key]);
    if (json !== undefined) parts.push({ key, json, bytes: utf8Bytes(json) });
  }
  let remaining = maxBytes - utf8Bytes(label) - 1;
  for (const p of parts) remaining -= utf8Bytes(`,"${p.key}":`);
  const ascending = [...parts].sort((a, b) => a.bytes - b.bytes);
  ascending.forEach((p, i) => {
    const share = Math.floor(remaining / (ascending.length - i));
    if (p.bytes > share) {
      p.json = preview(p.json, p.bytes, share);
      p.bytes = utf8Bytes(p.json);
    }
    remaining -= p.bytes;
  });
  return label + parts.map((p) => `,"${p.key}":${p.json}`).join('') + '}';
}

const MAX_LABEL_SOURCES = 8;
const MAX_SOURCE_CHARS = 200;

/** A label as stored: its three fields only, sources bounded (kept whole beside any cut). */
function storedLabel(label: ToolRecordLabel): ToolRecordLabel {
  const trust = label.trust === 'trusted' ? 'trusted' : 'untrusted';
  const sources = (label.sources ?? [])
    .slice(0, MAX_LABEL_SOURCES)
    .map((s) => head(redactText(String(s)), MAX_SOURCE_CHARS).replace(LONE_SURROGATE, '\uFFFD'));
  const base = { trust, private: label.private === true } as const;
  return sources.length === 0 ? base : { ...base, sources };
}

/** Reads back what `encodeToolRecord` stored. */
export function decodeToolRecord(json: string): ToolRecord {
  // eslint-disable-next-line no-restricted-syntax -- the store's own text, made by encodeToolRecord from a bounded record
  return JSON.parse(json) as ToolRecord;
}
