/**
 * The one duration grammar of every file and variable an operator writes (caesar.yaml, env
 * vars, CLI flags, policy.yaml, policy cases), documented once in docs/configuration.md
 * ("Durations") and decided in ADR 0043:
 *
 * - a count and a unit: `250ms`, `5s`, `1.5m`, `1h`, `1d`, with or without a space (`2 hours`);
 * - a unit word alone means one of it: `second`, `minute`, `hour`, `day` (`min`, `sec` too;
 *   a lone letter such as `m` is a typo more often than "one minute", so it is refused);
 * - a bare number (`250`, or a YAML number) means milliseconds only where the reader says so
 *   (`bareNumber: 'ms'`: caesar.yaml, env vars and flags, which always read it that way);
 *   elsewhere (the policy) it is refused as ambiguous;
 * - fractions round to whole milliseconds; negative and non-finite values are refused;
 * - at most {@link MAX_DURATION_MS} unless the reader sets its own `max`.
 *
 * This file imports nothing, so the CLI's flag parsers read durations without loading zod
 * (ADR 0047); the zod schema for config and policy files is in `duration-schema.ts`.
 */

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

/** Every unit the grammar knows, for the docs. */
export const DURATION_UNITS: readonly string[] = Object.freeze(Object.keys(UNIT_MS));

/** Optional count (digits, optional fraction), optional space, optional unit. Linear time. */
const DURATION_RE = /^(\d+(?:\.\d+)?)?\s*(ms|s|sec|seconds?|m|min|minutes?|h|hours?|d|days?)?$/;

/**
 * The longest duration a reader accepts unless it sets its own `max`: Node timers fire at
 * once past 2^31-1 ms, so no setting CAESAR waits on may be longer (about 24.8 days).
 */
export const MAX_DURATION_MS = 2_147_483_647;

/** How a reader takes a duration. */
export interface DurationOptions {
  /**
   * What a bare number (`250`, a YAML number) means: milliseconds, or refused as ambiguous.
   * Only settings (caesar.yaml, env vars, flags) read it as milliseconds; a policy window
   * written `per: 60` would otherwise allow a thousand times more calls than meant.
   * @default 'refuse'
   */
  bareNumber?: 'ms' | 'refuse';
  /** @default MAX_DURATION_MS */
  max?: number;
}

/** What a duration looks like, for error messages: one text, with the bare-number clause. */
export function durationHint(options: DurationOptions = {}): string {
  const bare = options.bareNumber === 'ms' ? ', or a number of milliseconds' : '';
  return `a duration such as 500ms, 5s, 1.5m, 2 hours or 1d${bare}`;
}

/** Milliseconds in `value`, or why it is not a duration under `options`. */
export function readDuration(
  value: string | number,
  options: DurationOptions = {},
): { ms: number } | { problem: string } {
  const shown = typeof value === 'number' ? String(value) : `'${value}'`;
  let ms: number;
  if (typeof value === 'number') {
    if (options.bareNumber !== 'ms') return { problem: bareNumberProblem(shown) };
    ms = value;
  } else {
    const m = DURATION_RE.exec(value.trim());
    const count = m?.[1];
    const unit = m?.[2];
    // A lone unit letter (`m`) is a typo more often than "one minute"; a word reads fine alone.
    if (!m || (count === undefined && (unit === undefined || unit.length < 3))) {
      return { problem: `invalid duration ${shown}: expected ${durationHint(options)}` };
    }
    if (unit === undefined && options.bareNumber !== 'ms') {
      return { problem: bareNumberProblem(shown) };
    }
    ms = Number(count ?? 1) * (UNIT_MS[unit ?? 'ms'] ?? Number.NaN);
  }
  if (!Number.isFinite(ms) || ms < 0) {
    return { problem: `invalid duration ${shown}: expected ${durationHint(options)}` };
  }
  const rounded = Math.round(ms);
  const max = options.max ?? MAX_DURATION_MS;
  if (rounded > max) return { problem: `invalid duration ${shown}: at most ${boundText(max)}` };
  return { ms: rounded };
}

/**
 * Milliseconds in a duration (`"5s"` -> 5000, `"2 hours"` -> 7200000), rounded to whole
 * milliseconds; `undefined` when it is not a duration under `options` (see the grammar above).
 */
export function parseDuration(
  value: string | number,
  options: DurationOptions = {},
): number | undefined {
  const read = readDuration(value, options);
  return 'ms' in read ? read.ms : undefined;
}

/**
 * Milliseconds in the largest unit that divides them exactly, in the form
 * {@link parseDuration} reads: `30000` -> `30s`, `120000` -> `2m`, `1500` -> `1500ms`,
 * `86400000` -> `1d`.
 */
export function formatDuration(ms: number): string {
  if (ms > 0) {
    for (const unit of ['d', 'h', 'm', 's'] as const) {
      const size = UNIT_MS[unit] as number;
      if (ms % size === 0) return `${ms / size}${unit}`;
    }
  }
  return `${ms}ms`;
}

function bareNumberProblem(shown: string): string {
  const n = shown.replace(/'/g, '');
  return `a bare number is ambiguous here: write it with a unit, such as ${n}s or ${n}ms`;
}

/** `30d`, or `2147483647ms (about 24.8 days)` when no unit divides the bound. */
export function boundText(ms: number): string {
  const text = formatDuration(ms);
  if (!text.endsWith('ms') || ms < 86_400_000) return text;
  return `${text} (about ${Math.floor(ms / 8_640_000) / 10} days)`;
}
