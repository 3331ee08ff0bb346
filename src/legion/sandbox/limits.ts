/**
 * What a command tool's program may use, per call (ADR 0097). Every limit is enforced by the
 * kernel or by the worker killing the sandbox, and each has its own error code when hit.
 */
export interface CommandLimits {
  /** CPU seconds (RLIMIT_CPU: SIGXCPU at the limit, SIGKILL a second later). @default 5 */
  readonly cpuSeconds?: number;
  /**
   * Memory in MB: a cgroup's memory limit when the worker can make one (an OOM kill, reported
   * as `sandbox_memory_limit`), else RLIMIT_AS (allocations past it fail). @default 256
   */
  readonly memoryMb?: number;
  /** Wall-clock time; the worker kills the sandbox and all in it. @default 10000 */
  readonly timeoutMs?: number;
  /** Bytes on stdout, and on stderr, each; more kills the sandbox. @default 1 MiB */
  readonly outputBytes?: number;
  /** Largest file the program may write (RLIMIT_FSIZE) and the size of its /tmp. @default 16 MiB */
  readonly fileBytes?: number;
  /** Processes in the sandbox (`pids.max`), where the worker can make a pids cgroup. @default 64 */
  readonly processes?: number;
}

export type ResolvedLimits = Required<CommandLimits>;

export const DEFAULT_LIMITS: ResolvedLimits = Object.freeze({
  cpuSeconds: 5,
  memoryMb: 256,
  timeoutMs: 10_000,
  outputBytes: 1024 * 1024,
  fileBytes: 16 * 1024 * 1024,
  processes: 64,
});

/** Bounds a definition may ask for; past them `defineCommandTool` refuses the declaration. */
export const LIMIT_BOUNDS: Readonly<Record<keyof ResolvedLimits, readonly [number, number]>> =
  Object.freeze({
    cpuSeconds: [1, 3600],
    memoryMb: [8, 65_536],
    timeoutMs: [100, 600_000],
    outputBytes: [1, 64 * 1024 * 1024],
    fileBytes: [0, 1024 * 1024 * 1024],
    processes: [1, 4096],
  });

/** The limits with defaults filled; a problem per limit that is not a whole number in bounds. */
export function resolveLimits(limits: CommandLimits | undefined): {
  readonly limits: ResolvedLimits;
  readonly problems: readonly { path: string; message: string }[];
} {
  const merged = { ...DEFAULT_LIMITS, ...(limits ?? {}) };
  const problems: { path: string; message: string }[] = [];
  for (const key of Object.keys(LIMIT_BOUNDS) as (keyof ResolvedLimits)[]) {
    const [min, max] = LIMIT_BOUNDS[key];
    const v = merged[key];
    if (!Number.isInteger(v) || v < min || v > max) {
      problems.push({
        path: `command.limits.${key}`,
        message: `expected a whole number from ${min} to ${max}`,
      });
    }
  }
  return { limits: Object.freeze(merged), problems };
}
