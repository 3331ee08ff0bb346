/**
 * Canonical JSON, the one implementation: RFC 8785 (JCS) for the values CAESAR hashes
 * (ToolSpec digests, audit rows). Object keys sorted by UTF-16 code units, no whitespace,
 * strings and numbers exactly as `JSON.stringify` writes them. Members JSON cannot hold are
 * treated as `JSON.stringify` treats them: `undefined` (or a function) is dropped from an
 * object and written `null` in an array, and a value with a `toJSON` method (a `Date`) is
 * written as what that method returns, so that a value hashes as its JSON text does once
 * parsed again (a signed reply's result, ADR 0060).
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

/** Serialises `value` canonically; throws on a cycle or a BigInt, as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  return canonical(value, true);
}

function canonical(value: unknown, viaToJson: boolean): string {
  if (viaToJson && hasToJson(value)) return canonical(value.toJSON(), false);
  if (value === null || typeof value !== 'object') {
    // JSON.stringify returns undefined for undefined and functions (typed as string)
    const text: string | undefined = JSON.stringify(value);
    return text ?? 'null';
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += canonical(value[i], true);
    }
    return out + ']';
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const member = record[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') {
      continue;
    }
    out += (first ? '' : ',') + JSON.stringify(key) + ':' + canonical(member, true);
    first = false;
  }
  return out + '}';
}

function hasToJson(value: unknown): value is { toJSON(): unknown } {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  );
}
