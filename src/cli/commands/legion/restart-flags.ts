import { InvalidArgumentError, Option, type Command } from 'commander';
// the file, not protocol/index.js: the flags are declared without loading zod (ADR 0047)
import {
  MAX_RESTART_COUNT,
  WORKER_RESTART_REASONS,
  type WorkerRestartReason,
} from '../../../protocol/restart-reasons.js';

/**
 * The hidden flags `caesar up` starts a restarted worker with (ADR 0070): how many times it
 * restarted it, why the last time, and when the process before ended. The worker declares
 * them in its discovery metadata (`caesar.restarts`). A first start has none; they are not
 * for operators, so `--help` does not show them.
 */
export interface RestartFlags {
  restartCount?: number;
  restartReason?: WorkerRestartReason;
  restartAt?: string;
}

/** The restarts the flags declare (undefined: a first start), or why they do not go together. */
export type RestartsOfFlags =
  | {
      ok: true;
      restarts: { count: number; last_reason: WorkerRestartReason; last_at: string } | undefined;
    }
  | { ok: false; problem: string };

export function addRestartFlags(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--restart-count <n>', 'restarts so far (caesar up)')
        .argParser(restartCount)
        .hideHelp(),
    )
    .addOption(
      new Option('--restart-reason <reason>', 'why the last restart (caesar up)')
        .argParser(restartReason)
        .hideHelp(),
    )
    .addOption(
      new Option('--restart-at <time>', 'when the process before ended (caesar up)')
        .argParser(restartAt)
        .hideHelp(),
    );
}

/** All three flags, or none. */
export function restartsOf(flags: RestartFlags): RestartsOfFlags {
  const { restartCount: count, restartReason: last_reason, restartAt: last_at } = flags;
  if (count === undefined && last_reason === undefined && last_at === undefined) {
    return { ok: true, restarts: undefined };
  }
  if (count === undefined || last_reason === undefined || last_at === undefined) {
    return {
      ok: false,
      problem:
        '--restart-count, --restart-reason and --restart-at go together: give all three or none',
    };
  }
  return { ok: true, restarts: { count, last_reason, last_at } };
}

function restartCount(value: string): number {
  const n = /^\d{1,10}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_RESTART_COUNT) {
    throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_RESTART_COUNT}`);
  }
  return n;
}

function restartReason(value: string): WorkerRestartReason {
  const reason = WORKER_RESTART_REASONS.find((r) => r === value);
  if (reason === undefined) {
    throw new InvalidArgumentError(`expected one of ${WORKER_RESTART_REASONS.join(', ')}`);
  }
  return reason;
}

/** ISO-8601 UTC, as `Date.toISOString()` writes it (seconds, optional fraction, `Z`). */
const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$/;

function restartAt(value: string): string {
  const m = ISO_UTC.exec(value);
  const t = m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : undefined;
  // a day or hour that does not exist (02-30, 25:00) rolls over: refused
  const exists =
    m !== null &&
    t !== undefined &&
    t.getUTCFullYear() === +m[1]! &&
    t.getUTCMonth() === +m[2]! - 1 &&
    t.getUTCDate() === +m[3]! &&
    t.getUTCHours() === +m[4]! &&
    t.getUTCMinutes() === +m[5]! &&
    t.getUTCSeconds() === +m[6]!;
  if (!exists) {
    throw new InvalidArgumentError(
      'expected an ISO-8601 UTC time such as 2026-12-04T10:00:00.000Z',
    );
  }
  return value;
}
