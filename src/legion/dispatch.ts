import { headers as natsHeaders, type Msg } from '@nats-io/nats-core';
import type { z } from 'zod';
import type { Logger } from '../log/index.js';
import {
  CaesarError,
  DispatchRequestSchema,
  HEADERS,
  MAX_ENVELOPE_BYTES,
  TimeoutError,
  type ErrorBody,
  type WorkerRef,
} from '../protocol/index.js';
import { abortReason } from './abort.js';
import type { ToolContext } from './context.js';
import type { ToolDefinition } from './define.js';
import type { Limiter } from './limiter.js';
import type { EndpointStats } from './stats.js';

const decoder = new TextDecoder();
const encoder = new TextEncoder();

export interface DispatchDeps {
  tool: ToolDefinition;
  config: unknown;
  worker: WorkerRef;
  logger: Logger;
  limiter: Limiter;
  stats: EndpointStats;
  /** Aborts every call still running when the shutdown grace period ends. */
  cutoff: AbortSignal;
  /** Tracks calls from receipt to reply, so shutdown can wait for them. */
  inflight: Set<Promise<void>>;
}

/** Builds the message callback of a tool's dispatch endpoint. */
export function createDispatchHandler(deps: DispatchDeps): (msg: Msg) => void {
  return (msg) => {
    const call = handleCall(deps, msg);
    deps.inflight.add(call);
    void call.finally(() => deps.inflight.delete(call));
  };
}

async function handleCall(deps: DispatchDeps, msg: Msg): Promise<void> {
  const started = performance.now();
  const reply = (body: Record<string, unknown>, error?: ErrorBody) => {
    const durationMs = performance.now() - started;
    deps.stats.record(durationMs, error ? `${error.code}: ${error.message}` : undefined);
    if (!msg.reply) return;
    const payload = encoder.encode(
      JSON.stringify({ v: 1, ...body, worker: deps.worker, duration_ms: round(durationMs) }),
    );
    if (!error) {
      msg.respond(payload);
      return;
    }
    const h = natsHeaders();
    h.set(HEADERS.serviceError, error.message.slice(0, 512).replace(/[\r\n]+/g, ' '));
    h.set(HEADERS.serviceErrorCode, String(new CaesarError(error.code, '').status));
    msg.respond(payload, { headers: h });
  };
  const fail = (error: ErrorBody) => reply({ success: false, error }, error);

  try {
    const outcome = await runCall(deps, msg);
    if (outcome.ok) reply({ success: true, result: outcome.result });
    else fail(outcome.error);
  } catch (err) {
    deps.logger.error({ err }, 'dispatch handler failed unexpectedly');
    fail(toErrorBody(err));
  }
}

type Outcome = { ok: true; result: unknown } | { ok: false; error: ErrorBody };

async function runCall(deps: DispatchDeps, msg: Msg): Promise<Outcome> {
  const { tool, limiter } = deps;
  if (msg.data.length > MAX_ENVELOPE_BYTES) {
    return invalid(
      `dispatch envelope is ${msg.data.length} bytes; the limit is ${MAX_ENVELOPE_BYTES}`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(decoder.decode(msg.data));
  } catch {
    return invalid('dispatch envelope is not valid JSON');
  }
  const req = DispatchRequestSchema.safeParse(raw);
  if (!req.success) return invalid('malformed dispatch envelope', issuesOf(req.error));
  if (req.data.tool !== tool.spec.name) {
    return invalid(
      `envelope names tool '${req.data.tool}' but this endpoint serves '${tool.spec.name}'`,
    );
  }
  const now = Date.now();
  const deadline = Math.min(req.data.deadline, now + tool.spec.timeout_ms);
  if (deadline <= now) {
    return failure(new TimeoutError('the call arrived after its deadline'));
  }
  const input = tool.input.safeParse(req.data.input);
  if (!input.success) {
    const details = issuesOf(input.error);
    return invalid(
      `input does not match the ${tool.spec.name} schema: ${summarise(details)}`,
      details,
    );
  }

  const controller = new AbortController();
  const onCutoff = () =>
    controller.abort(new TimeoutError('worker is shutting down; call cut off'));
  deps.cutoff.addEventListener('abort', onCutoff, { once: true });
  const timer = setTimeout(
    () => controller.abort(new TimeoutError(`deadline of ${deadline - now} ms passed`)),
    deadline - now,
  );
  try {
    const slot = limiter.acquire(controller.signal);
    if (slot === false) {
      return failure(
        new CaesarError(
          'overloaded',
          `${tool.spec.name} is running ${limiter.active} calls with ${limiter.queued} queued; try again`,
        ),
      );
    }
    if (slot !== true) await slot;
    return await runHandler(deps, input.data, req.data.decision_id, deadline, controller.signal);
  } catch (err) {
    return failure(err);
  } finally {
    clearTimeout(timer);
    deps.cutoff.removeEventListener('abort', onCutoff);
  }
}

/** Runs the handler in its slot; answers as soon as it settles or the signal aborts. */
async function runHandler(
  deps: DispatchDeps,
  input: unknown,
  decisionId: string,
  deadline: number,
  signal: AbortSignal,
): Promise<Outcome> {
  const { tool, limiter } = deps;
  let logger: Logger | undefined;
  const ctx: ToolContext = {
    get logger() {
      return (logger ??= deps.logger.child({ decisionId }));
    },
    signal,
    decisionId,
    deadline,
    config: deps.config,
    worker: deps.worker,
  };
  // The slot is held until the handler really settles, even after a timeout reply, so a
  // handler that ignores its signal cannot make the worker run more than its cap at once.
  const work = Promise.resolve()
    .then(() => tool.handler(input, ctx))
    .finally(() => limiter.release());
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(abortReason(signal));
    signal.addEventListener('abort', () => reject(abortReason(signal)), { once: true });
  });
  aborted.catch(() => undefined); // observed through the race below; never unhandled
  work.catch((err) => {
    if (signal.aborted)
      deps.logger.debug({ err, decisionId }, 'handler settled after its deadline');
  });
  const result = await Promise.race([work, aborted]);
  const output = tool.output.safeParse(result);
  if (!output.success) {
    deps.logger.error(
      { issues: issuesOf(output.error), decisionId },
      'handler output failed its schema',
    );
    return failure(
      new CaesarError(
        'internal',
        `${tool.spec.name} produced output that does not match its schema`,
      ),
    );
  }
  return { ok: true, result: output.data };
}

function invalid(message: string, details?: unknown): Outcome {
  return { ok: false, error: { code: 'invalid_input', message, retryable: false, details } };
}

function failure(err: unknown): Outcome {
  return { ok: false, error: toErrorBody(err) };
}

/** Coded errors keep their code; anything else is `internal` (a bug in the handler). */
export function toErrorBody(err: unknown): ErrorBody {
  if (err instanceof CaesarError) {
    const body: ErrorBody = {
      code: err.code,
      message: err.message.slice(0, 4096),
      retryable: err.retryable,
    };
    if (err.details !== undefined) body.details = err.details;
    return body;
  }
  const message = err instanceof Error ? err.message : String(err);
  return {
    code: 'internal',
    message: `handler failed: ${message}`.slice(0, 4096),
    retryable: false,
  };
}

export interface FieldIssue {
  path: string;
  message: string;
}

function issuesOf(error: z.ZodError): FieldIssue[] {
  return error.issues.slice(0, 20).map((i) => ({
    path: i.path.map(String).join('.') || '(root)',
    message: i.message,
  }));
}

function summarise(issues: FieldIssue[]): string {
  return issues.map((i) => `${i.path}: ${i.message}`).join('; ');
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
