/**
 * How long a server asked us to wait, from its answer's headers. `retry-after-ms` (OpenAI's
 * milliseconds, not a standard header) wins over `retry-after`, which is either a number of
 * seconds or an HTTP date (RFC 9110 §10.2.3). A date in the past means now (0). A value that
 * is neither is ignored (undefined), as is a header that is absent.
 */
export function parseRetryAfter(
  headers: { get(name: string): string | null } | undefined,
  nowMs: number,
): number | undefined {
  if (headers === undefined) return undefined;
  const ms = parseNumber(headers.get('retry-after-ms'));
  if (ms !== undefined) return Math.ceil(ms);
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  const seconds = parseNumber(value);
  if (seconds !== undefined) return Math.ceil(seconds * 1000);
  const at = Date.parse(value);
  if (Number.isNaN(at) || !/[a-z]/i.test(value)) return undefined;
  return Math.max(0, at - nowMs);
}

/** A non-negative decimal number, or undefined. */
function parseNumber(value: string | null): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (!/^\d+(\.\d+)?$/.test(trimmed)) return undefined;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : undefined;
}
