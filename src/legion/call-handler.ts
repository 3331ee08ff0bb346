import { Buffer } from 'node:buffer';
import { headers as natsHeaders, type Msg, type MsgHdrs } from '@nats-io/nats-core';
import type { Logger } from '../log/index.js';
import { errorEntry, errorMessage } from '../errors/index.js';
import {
  CaesarError,
  fieldIssuesOf,
  isWireErrorCode,
  summariseFieldIssues,
  DispatchRequestSchema,
  HEADERS,
  MAX_ENVELOPE_BYTES,
  MAX_ENVELOPE_DEPTH,
  TimeoutError,
  type ErrorBody,
  type WorkerRef,
} from '../protocol/index.js';
import { grantNonce, type GrantAddressee, type GrantVerifier } from '../protocol/grant.js';
import type { ReplySigner } from '../protocol/reply-signature.js';
import { formatPath, readJsonText } from '../text/index.js';
import type { ToolContext } from './context.js';
import type { ToolDefinition } from './define.js';
import type { Limiter } from './limiter.js';
import { replyBody, type Outcome, type SignFor } from './reply-body.js';
import type { ReplyCache } from './reply-cache.js';
import { ERROR_HEADER_BYTES, replyTooLarge } from './reply-limit.js';
import type { EndpointStats } from './stats.js';
import { roundMs } from '../clock/index.js';

const decoder = new TextDecoder();

interface CallHandlerDeps {
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
  /** Checks each call's signed grant; unset, calls run without one. */
  grants?: GrantVerifier;
  /** The `max_payload` of the server the connection is on now (see `reply-limit.ts`). */
  maxPayload: () => number | undefined;
  /** Signs the answer to each call that carries a grant (ADR 0060); unset, none is signed. */
  replies?: ReplySigner;
  /**
   * Remembers each call and its reply for the brain's result queries (ADR 0099); a call it
   * fenced (the brain was told this worker never saw it) is refused. Unset, none is kept.
   */
  cache?: ReplyCache;
}

/**
 * The worker side of a call: builds the message callback of a tool's dispatch endpoint,
 * which receives each call the brain dispatches, runs it and answers it.
 *
 * Hot path: a call whose handler answers synchronously is validated, run and answered
 * within the message callback, with no AbortController, timer or promise. A call that
 * goes asynchronous (queued for a slot, or a handler returning a promise) is "armed": its
 * deadline timer starts, it joins the set the shutdown cutoff aborts, and it is tracked in
 * `inflight` until answered. `ctx.signal` is created on first read.
 */
export function createCallHandler(deps: CallHandlerDeps): (msg: Msg) => void {
  const armed = new Set<CallControl>();
  deps.cutoff.addEventListener(
    'abort',
    () => {
      for (const c of armed) c.abort(new TimeoutError('worker is shutting down; call cut off'));
    },
    { once: true },
  );
  return (msg) => {
    const started = performance.now();
    const to: SignFor = {};
    let outcome: Outcome | Promise<Outcome>;
    try {
      outcome = startCall(deps, armed, msg, to);
    } catch (err) {
      outcome = unexpected(deps, err);
    }
    if (!(outcome instanceof Promise)) {
      answer(deps, msg, started, outcome, to);
      return;
    }
    const call: Promise<void> = outcome.then(
      (o) => {
        deps.inflight.delete(call);
        answer(deps, msg, started, o, to);
      },
      (err: unknown) => {
        deps.inflight.delete(call);
        answer(deps, msg, started, unexpected(deps, err), to);
      },
    );
    deps.inflight.add(call);
  };
}

function unexpected(deps: CallHandlerDeps, err: unknown): Outcome {
  deps.logger.error({ err }, 'call handler failed unexpectedly');
  return failure(err);
}

function answer(
  deps: CallHandlerDeps,
  msg: Msg,
  started: number,
  outcome: Outcome,
  to: SignFor,
): void {
  const durationMs = performance.now() - started;
  try {
    const reply = encodeReply(deps, outcome, roundMs(durationMs), to);
    const error = reply.outcome.ok ? undefined : reply.outcome.error;
    deps.stats.record(durationMs, error ? `${error.code}: ${error.message}` : undefined);
    if (!msg.reply) return;
    let headers: MsgHdrs | undefined;
    if (error) {
      headers = natsHeaders();
      headers.set(HEADERS.serviceError, error.message.slice(0, 512).replace(/[\r\n]+/g, ' '));
      headers.set(HEADERS.serviceErrorCode, String(new CaesarError(error.code, '').status));
    }
    // kept before it is sent: a send that throws (the bus closed) leaves it for a query
    if (deps.cache !== undefined && to.decisionId !== undefined) {
      const sent = { payload: reply.payload, to: msg.reply, sentAt: Date.now() };
      deps.cache.sent(to.decisionId, headers ? { ...sent, headers } : sent);
    }
    msg.respond(reply.payload, headers ? { headers } : undefined);
  } catch (err) {
    deps.logger.error({ err }, 'could not send the dispatch reply');
  }
}

/**
 * The reply envelope, encoded. One larger than the bus or the brain takes (a result over the
 * server's `max_payload` could not be sent, and the brain would wait out the deadline) is
 * answered `result_too_large` in its place, at once.
 */
function encodeReply(
  deps: CallHandlerDeps,
  outcome: Outcome,
  duration_ms: number,
  to: SignFor,
): { outcome: Outcome; payload: Buffer } {
  // signed (a call with a grant, ADR 0060), so a result_too_large in its place is signed too
  const body = replyBody(deps.worker, outcome, duration_ms, deps.replies, to);
  // Buffer.from takes small strings from a shared pool: a few times cheaper than
  // TextEncoder.encode for reply-sized payloads.
  const payload = Buffer.from(JSON.stringify(body));
  const headers = outcome.ok ? 0 : ERROR_HEADER_BYTES;
  const tooLarge = replyTooLarge(deps.tool.spec.name, payload.length, headers, deps.maxPayload());
  // the replacement is small; should even it not fit, it goes as it is, and the send says why
  if (tooLarge === undefined || (!outcome.ok && outcome.error.code === tooLarge.code)) {
    return { outcome, payload };
  }
  deps.logger.warn({ bytes: payload.length }, tooLarge.message);
  return encodeReply(deps, { ok: false, error: tooLarge }, duration_ms, to);
}

/**
 * One call's abort state. The AbortController is made only when someone reads `signal`
 * (a handler, or the limiter queue); the deadline timer only when the call is armed.
 */
class CallControl {
  #controller: AbortController | undefined;
  #reason: Error | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Called once on abort; the async path resolves its outcome with it. */
  onAbort: ((reason: Error) => void) | undefined;

  constructor(
    private readonly armed: Set<CallControl>,
    private readonly deadline: number,
    private readonly budgetMs: number,
  ) {}

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#reason) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  get aborted(): boolean {
    return this.#reason !== undefined;
  }

  get reason(): Error | undefined {
    return this.#reason;
  }

  abort(reason: Error): void {
    if (this.#reason) return;
    this.#reason = reason;
    this.disarm();
    this.#controller?.abort(reason);
    this.onAbort?.(reason);
  }

  /** Starts the deadline timer and makes the call subject to the shutdown cutoff. */
  arm(): void {
    if (this.#timer || this.#reason) return;
    this.#timer = setTimeout(
      () => this.abort(new TimeoutError(`deadline of ${this.budgetMs} ms passed`)),
      Math.max(0, this.deadline - Date.now()),
    );
    this.armed.add(this);
  }

  disarm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.armed.delete(this);
  }
}

function startCall(
  deps: CallHandlerDeps,
  armed: Set<CallControl>,
  msg: Msg,
  to: SignFor,
): Outcome | Promise<Outcome> {
  const { tool, limiter } = deps;
  if (msg.data.length > MAX_ENVELOPE_BYTES) {
    return invalid(
      tool.spec.name,
      `dispatch envelope is ${msg.data.length} bytes; the limit is ${MAX_ENVELOPE_BYTES}`,
    );
  }
  const text = decoder.decode(msg.data);
  // Depth first, on the text: nothing below (zod, the handler) then recurses over a hostile
  // nesting. Prototype keys next: refused here as at the brain's HTTP edge.
  const read = readJsonText(text, MAX_ENVELOPE_DEPTH);
  if (!read.ok) {
    if (read.why === 'deep') {
      return invalid(
        tool.spec.name,
        `dispatch envelope nests deeper than ${MAX_ENVELOPE_DEPTH} levels at offset ${read.offset}`,
      );
    }
    if (read.why === 'syntax') {
      return invalid(tool.spec.name, 'dispatch envelope is not valid JSON');
    }
    return invalid(
      tool.spec.name,
      `dispatch envelope contains a \`${read.key}\` key at ${formatPath(read.path)}, ` +
        'which is not allowed',
    );
  }
  const raw = read.value;
  const req = DispatchRequestSchema.safeParse(raw);
  if (!req.success) {
    const details = fieldIssuesOf(req.error);
    return invalid(
      tool.spec.name,
      `malformed dispatch envelope: ${summariseFieldIssues(details)}`,
      details,
    );
  }
  // from here on every answer, a refusal too, is signed for this call
  to.decisionId = req.data.decision_id;
  if (req.data.grant !== undefined) to.nonce = grantNonce(req.data.grant);
  if (req.data.reply_dh !== undefined) to.brainDh = req.data.reply_dh;
  if (req.data.tool !== tool.spec.name) {
    return invalid(
      tool.spec.name,
      `envelope names tool '${req.data.tool}' but this endpoint serves '${tool.spec.name}'`,
    );
  }
  if (deps.grants !== undefined) {
    const { tool: name, input, decision_id: decisionId, deadline } = req.data;
    const { replies } = deps;
    // a v2 grant is MACed for this instance with the key its process agreed with the brain
    const addressee: GrantAddressee | undefined =
      replies === undefined
        ? undefined
        : {
            instanceId: deps.worker.id,
            brainDh: req.data.reply_dh,
            brainDhSig: req.data.reply_dh_sig,
            keyFor: (dh) => replies.grantKey(dh),
          };
    const claims = { tool: name, input, decisionId, deadline };
    const verdict = deps.grants.check(req.data.grant, claims, addressee);
    if (!verdict.ok) {
      // not named by a v2 grant: the brain sends the call again signed (ADR 0108); nothing
      // is wrong, so no warn line
      const code = verdict.unaddressed === true ? 'grant_unaddressed' : 'grant_rejected';
      const fields = { decisionId, reason: verdict.reason };
      if (verdict.unaddressed === true)
        deps.logger.debug(fields, 'call refused: grant unaddressed');
      else deps.logger.warn(fields, 'call refused: grant rejected');
      const message = errorMessage(code, { reason: verdict.reason });
      return { ok: false, error: { code, message, retryable: errorEntry(code).retryable } };
    }
  }
  const now = Date.now();
  const deadline = Math.min(req.data.deadline, now + tool.spec.timeout_ms);
  if (deadline <= now) {
    return failure(new TimeoutError('the call arrived after its deadline'));
  }
  const attempt = req.data.attempt ?? 0;
  if (deps.cache?.admit(req.data.decision_id, attempt, req.data.deadline) === false) {
    deps.logger.warn(
      { decisionId: req.data.decision_id, attempt },
      'call refused: the brain was told this worker never received it',
    );
    return failure(
      new TimeoutError(
        'the call arrived after the brain was told this worker never received it; it did not run',
      ),
    );
  }
  if (deps.cutoff.aborted) {
    return failure(new TimeoutError('worker is shutting down; call cut off'));
  }
  const input = tool.input.safeParse(req.data.input);
  if (!input.success) {
    const details = fieldIssuesOf(input.error);
    return invalid(tool.spec.name, summariseFieldIssues(details), details);
  }

  const control = new CallControl(armed, deadline, deadline - now);
  const run = () => runInSlot(deps, control, input.data, req.data.decision_id, deadline);
  // With a free slot the limiter never looks at the signal, so do not make one.
  if (limiter.active < limiter.maxConcurrency) {
    void limiter.acquire(UNUSED_SIGNAL);
    return run();
  }
  const slot = limiter.acquire(control.signal);
  if (slot === false) {
    return failure(CaesarError.of('overloaded', { tool: tool.spec.name, running: limiter.active }));
  }
  if (slot === true) return run();
  control.arm();
  return slot.then(run, (err: unknown) => {
    control.disarm();
    return failure(err);
  });
}

/** Never aborted; stands in where the limiter wants a signal it will not use. */
const UNUSED_SIGNAL = new AbortController().signal;

/**
 * Runs the handler in its slot. A synchronous answer is final at once; a promise is raced
 * against the call's abort (deadline or cutoff). The slot is held until the handler really
 * settles, even after a timeout reply, so a handler that ignores its signal cannot make
 * the worker run more than its cap at once.
 */
function runInSlot(
  deps: CallHandlerDeps,
  control: CallControl,
  input: unknown,
  decisionId: string,
  deadline: number,
): Outcome | Promise<Outcome> {
  const { tool, limiter } = deps;
  if (control.reason) {
    // Cut off between getting its slot and starting.
    limiter.release();
    control.disarm();
    return failure(control.reason);
  }
  let logger: Logger | undefined;
  const ctx: ToolContext = {
    get logger() {
      return (logger ??= deps.logger.child({ decisionId }));
    },
    get signal() {
      return control.signal;
    },
    decisionId,
    deadline,
    config: deps.config,
    worker: deps.worker,
  };
  let result: unknown;
  try {
    result = tool.handler(input, ctx);
  } catch (err) {
    limiter.release();
    control.disarm();
    return failure(err);
  }
  if (!isThenable(result)) {
    limiter.release();
    control.disarm();
    return checkOutput(deps, result, decisionId);
  }
  control.arm();
  return new Promise<Outcome>((resolve) => {
    control.onAbort = (reason) => resolve(failure(reason));
    result.then(
      (value) => {
        limiter.release();
        control.disarm();
        if (!control.aborted) resolve(checkOutput(deps, value, decisionId));
      },
      (err: unknown) => {
        limiter.release();
        control.disarm();
        if (control.aborted) {
          deps.logger.debug({ err, decisionId }, 'handler settled after its deadline');
        } else {
          resolve(failure(err));
        }
      },
    );
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function checkOutput(deps: CallHandlerDeps, result: unknown, decisionId: string): Outcome {
  const { tool } = deps;
  const output = tool.output.safeParse(result);
  if (output.success) return { ok: true, result: output.data };
  deps.logger.error(
    { issues: fieldIssuesOf(output.error), decisionId },
    'handler output failed its schema',
  );
  return failure(
    CaesarError.of('internal', {
      reason: `${tool.spec.name} produced output that does not match its schema`,
    }),
  );
}

/** `invalid_input` in the catalogue's words: `issues` says what is wrong with the envelope or input. */
function invalid(tool: string, issues: string, details?: unknown): Outcome {
  const message = errorMessage('invalid_input', { tool, issues });
  return { ok: false, error: { code: 'invalid_input', message, retryable: false, details } };
}

function failure(err: unknown): Outcome {
  return { ok: false, error: toErrorBody(err) };
}

/**
 * Coded errors with a wire code keep it; anything else is `internal` (a bug in the handler,
 * or a local code such as a config error that has no business on the wire).
 */
export function toErrorBody(err: unknown): ErrorBody {
  if (err instanceof CaesarError && isWireErrorCode(err.code)) {
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
    message: errorMessage('internal', { reason: `handler failed: ${message}` }).slice(0, 4096),
    retryable: false,
  };
}
