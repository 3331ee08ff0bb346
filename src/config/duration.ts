const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** `500ms`, `5s`, `1.5m`, `1h`, or bare digits meaning milliseconds. */
const DURATION_RE = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/;

/** Node timers fire at once past 2^31-1 ms, so no duration may be longer (about 24.8 days). */
export const MAX_DURATION_MS = 2_147_483_647;

/** What a duration looks like, for error messages and docs. */
export const DURATION_HINT = 'a duration such as 500ms, 5s, 2m, 1h, or a number of milliseconds';

/**
 * Milliseconds in a duration (`"5s"` -> 5000, `250` -> 250), rounded to whole
 * milliseconds; `undefined` when it does not parse, is negative or exceeds
 * {@link MAX_DURATION_MS}.
 */
export function parseDuration(value: string | number): number | undefined {
  let ms: number;
  if (typeof value === 'number') {
    ms = value;
  } else {
    const m = DURATION_RE.exec(value.trim());
    if (!m?.[1]) return undefined;
    ms = Number(m[1]) * UNIT_MS[(m[2] ?? 'ms') as keyof typeof UNIT_MS];
  }
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  const rounded = Math.round(ms);
  return rounded > MAX_DURATION_MS ? undefined : rounded;
}

/**
 * Milliseconds in the largest unit that divides them exactly, in the form
 * {@link parseDuration} reads: `30000` -> `30s`, `120000` -> `2m`, `1500` -> `1500ms`.
 */
export function formatDuration(ms: number): string {
  if (ms > 0) {
    for (const unit of ['h', 'm', 's'] as const) {
      if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
    }
  }
  return `${ms}ms`;
}
