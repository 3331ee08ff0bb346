import { z } from 'zod';
import { fieldIssuesOf, summariseFieldIssues } from '../../protocol/field-issues.js';
import { PreflightReplySchema } from '../../protocol/preflight.js';
import {
  WORKER_RESTART_REASONS,
  type WorkerRestartReason,
} from '../../protocol/restart-reasons.js';

/**
 * What a child of `caesar up` tells its supervisor over the IPC channel (ADR 0039): the
 * brain once its HTTP API listens, a worker once it serves and then what its tools' preflight
 * found, and any child that cannot start why, before it exits. Both sides use these schemas: a child builds its message with the
 * schema's type ({@link tellSupervisor} in `child.ts`), the supervisor parses every message
 * with {@link parseChildMessage} and refuses one that does not match, naming the fields at
 * fault. Both sides ship in one build, so an unknown field is a bug too (strict objects).
 */

const nonEmpty = z.string().min(1, 'expected a non-empty string');

/** The brain is ready: its HTTP API listens, and where its files are. */
const BrainReadySchema = z.strictObject({
  type: z.literal('brain_ready'),
  /** Base URL of the HTTP API, as a client on this host reaches it. */
  url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }),
  nats_url: nonEmpty,
  tokens_file: nonEmpty,
  /** The brain created the tokens file on this start (with an `operator` token). */
  created_tokens_file: z.boolean(),
  audit_db: nonEmpty,
  policy_file: nonEmpty,
  /** The public key the brain signs dispatch grants with; absent when it signs none. */
  grant_key: nonEmpty.optional(),
  /**
   * The model the brain asks (`model: openai gpt-4o-mini`, or `no model: local rules only`)
   * and one line per endpoint of its start-up check (ADR 0075). Absent from an older brain.
   */
  llm: z
    .strictObject({
      model: nonEmpty.max(1000),
      checks: z.array(nonEmpty.max(2000)).max(8),
    })
    .optional(),
});
export type BrainReady = z.infer<typeof BrainReadySchema>;

/** One instance a worker serves. */
const WorkerInstanceSchema = z.strictObject({
  tool: nonEmpty,
  id: nonEmpty,
  host: z.string(),
});

/** A worker is ready: it serves these instances. */
const WorkerReadySchema = z.strictObject({
  type: z.literal('worker_ready'),
  instances: z.array(WorkerInstanceSchema).min(1, 'expected at least one instance'),
});
export type WorkerReady = z.infer<typeof WorkerReadySchema>;

/**
 * What a worker's preflight found, tool by tool, run in the worker once it serves (the lines
 * `caesar up` prints before `ready:`; ADR 0048 addendum 2: the supervisor holds no NATS
 * client of its own to ask).
 */
const WorkerPreflightSchema = z.strictObject({
  type: z.literal('worker_preflight'),
  replies: z.array(PreflightReplySchema).min(1, 'expected at least one reply'),
});
export type WorkerPreflight = z.infer<typeof WorkerPreflightSchema>;

/** A child cannot start (a config error, say, that a restart would only repeat). */
const ChildFatalSchema = z.strictObject({
  type: z.literal('fatal'),
  message: z.string(),
});

/**
 * The child's event loop runs: sent every heartbeat interval from a timer, so a loop blocked
 * in synchronous work sends none and the supervisor kills the child (ADR 0070).
 */
const ChildAliveSchema = z.strictObject({ type: z.literal('alive') });

const ChildMessageSchema = z.discriminatedUnion('type', [
  BrainReadySchema,
  WorkerReadySchema,
  WorkerPreflightSchema,
  ChildFatalSchema,
  ChildAliveSchema,
]);
export type ChildMessage = z.infer<typeof ChildMessageSchema>;

/** A message as the supervisor reads it: the parsed message, or what is wrong with it. */
type ParsedChildMessage = { ok: true; message: ChildMessage } | { ok: false; problem: string };

/** Parses one IPC message; `problem` names each field at fault (`url: expected …`). */
export function parseChildMessage(raw: unknown): ParsedChildMessage {
  const parsed = ChildMessageSchema.safeParse(raw);
  if (parsed.success) return { ok: true, message: parsed.data };
  return { ok: false, problem: summariseFieldIssues(fieldIssuesOf(parsed.error)) };
}

/** Why `caesar up` restarted a part (ADR 0070): one list, which the worker's flags use too. */
export type RestartReason = WorkerRestartReason;

/**
 * What the supervisor tells the brain (parent to child): a part of the stack was restarted.
 * Sent once per restart; while the brain itself is down (it may be the part restarted) the
 * supervisor keeps them and sends them once the brain is ready again. The brain writes each
 * as a `worker.restarted` audit row.
 */
const ChildRestartedSchema = z.strictObject({
  type: z.literal('child_restarted'),
  /** The child's name under `caesar up`: `brain`, `nats` or the tool a worker serves. */
  name: nonEmpty,
  kind: z.enum(['brain', 'worker', 'nats']),
  reason: z.enum(WORKER_RESTART_REASONS),
  /** One line for a human: `no heartbeat for 10.0 s`, `V8 heap limit (256 MB)`, `exited (code 1)`. */
  detail: z.string().max(300),
  /** Restarts of this child since `caesar up` started, this one included. */
  count: z.number().int().min(1),
  /** The pid that was ended, when it had one. */
  pid: z.number().int().positive().optional(),
  /** How the old process ended. */
  exit: z.strictObject({ code: z.number().int().nullable(), signal: z.string().nullable() }),
  /** When the old process ended, ISO-8601 UTC. */
  at: z.iso.datetime(),
  /** The delay before the new one starts, ms. */
  delay_ms: z.number().int().min(0),
});
export type ChildRestarted = z.infer<typeof ChildRestartedSchema>;

const SupervisorMessageSchema = z.discriminatedUnion('type', [ChildRestartedSchema]);
export type SupervisorMessage = z.infer<typeof SupervisorMessageSchema>;

/** Parses one message from the supervisor, as the brain reads it; `problem` names the fields at fault. */
export function parseSupervisorMessage(
  raw: unknown,
): { ok: true; message: SupervisorMessage } | { ok: false; problem: string } {
  const parsed = SupervisorMessageSchema.safeParse(raw);
  if (parsed.success) return { ok: true, message: parsed.data };
  return { ok: false, problem: summariseFieldIssues(fieldIssuesOf(parsed.error)) };
}
