import { z } from 'zod';

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  sec: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
};

/**
 * `250ms`, `30s`, `5m`, `1h`, `1d`, or a unit word with an optional count: `minute`, `2 hours`.
 * A bare number is refused (it is ambiguous).
 */
const DURATION_RE = /^(\d+)?\s*(ms|s|sec|seconds?|m|min|minutes?|h|hours?|d|days?)$/;

/** How durations are written, for error messages. */
export const DURATION_HINT = 'a duration like 30s, 5m, 1h, 1d or minute, hour, day';

/** Milliseconds in a duration string, or `undefined` when it does not parse. */
export function parseDuration(text: string): number | undefined {
  const m = DURATION_RE.exec(text.trim());
  if (!m?.[2]) return undefined;
  // A lone unit letter (`m`) is a typo more often than "one minute"; a word reads fine alone.
  if (m[1] === undefined && m[2].length < 3) return undefined;
  return Number(m[1] ?? 1) * (UNIT_MS[m[2]] ?? NaN);
}

/** A duration string, parsed to milliseconds (at least 1). */
export const DurationSchema = z.string().transform((text, ctx) => {
  const ms = parseDuration(text);
  if (ms !== undefined && ms >= 1) return ms;
  ctx.addIssue({ code: 'custom', message: `expected ${DURATION_HINT}` });
  return z.NEVER;
});
