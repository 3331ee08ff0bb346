import { Buffer } from 'node:buffer';
import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/nats-core';
import { ConnectionWatch, type BusStatus } from '../../bus/index.js';
import { silentLogger, type Logger } from '../../log/index.js';
import { errorEntry, errorMessage } from '../../errors/index.js';
import { grantNonce, type GrantSigner } from '../../protocol/grant.js';
import { CallReplyCheck, readReply, type ReplyBinding, type Refusal } from './reply-check.js';
import { ReplyMux, type MuxOutcome } from './reply-mux.js';
import { recoverCall, type CallInFlight, type RecoveryOptions } from './recovery.js';
import {
  HEADERS,
  dispatchSubject,
  type DispatchFailure,
  type DispatchReply,
  type DispatchRequest,
} from '../../protocol/index.js';
import { msSince } from '../../clock/index.js';

interface DispatcherOptions {
  /** A connected client; the caller owns it. */
  nc: NatsConnection;
  logger?: Logger;
  /**
   * How long past the deadline to keep waiting. A worker answers `timeout` itself the
   * moment the deadline passes (with what it was doing); this grace lets that reply win
   * the race against a bare `dispatch_timeout`. @default 200
   */
  replyGraceMs?: number;
  /**
   * The reply inbox prefix (`_INBOX.<identity>`) for least-privilege permissions.
   * @default the one the connection was opened with
   */
  inboxPrefix?: string;
  /** The connection's status, when the caller already follows it. @default a new watch of `nc` */
  connection?: ConnectionWatch;
  /**
   * Signs a grant into every envelope (ADR 0052), binding tool, input, decision id, deadline
   * and `policySha256`. Unset, envelopes carry none and workers that require one refuse.
   * With `replies` too, a tool whose listed instances all take v2 grants gets one MACed for
   * each instead of a signature (ADR 0108).
   */
  signer?: GrantSigner;
  /**
   * With `signer`, binds each reply to its call (ADR 0060): a reply counts only when the key
   * of the instance it names signed it for this call; anything else on the reply subject is
   * refused and the call keeps waiting. Unset, the first reply is the answer.
   */
  replies?: ReplyBinding;
  /** Told of every refused reply (the brain counts them: `caesar_replies_refused_total`). */
  onRefusedReply?: (tool: string, refusal: Refusal) => void;
  /**
   * Told of every call sent again signed after `grant_unaddressed` (ADR 0108; the brain counts
   * them: `caesar_grants_resent_total`).
   */
  onGrantResent?: (tool: string) => void;
  /**
   * Recovers the calls in flight when the bus may have lost messages (ADR 0099): each is
   * answered with its real result, re-dispatched once (idempotent tools) or `outcome_unknown`,
   * instead of waiting out its deadline for `dispatch_timeout`. Unset, calls wait as before.
   */
  recovery?: RecoveryOptions;
}

/** How a call the bus lost was recovered (ADR 0099); the audit row carries it. */
export interface Recovery {
  /** `result`: the worker's own reply, asked for; `redispatched`; `outcome_unknown`. */
  readonly how: 'result' | 'redispatched' | 'outcome_unknown';
  /** What made the brain ask: `reconnected` (its own connection) or `server_lost`. */
  readonly trigger: string;
  /** The instances asked. */
  readonly asked: readonly string[];
  /** The instance whose reply it is, for `result`. */
  readonly instance?: string;
}

/** A reply, and how it was recovered when the bus lost the call or its first reply. */
export type DispatchResult = DispatchReply & { readonly recovery?: Recovery };

interface DispatchOptions {
  /**
   * The brain's decision id: always in the envelope; also in the `Caesar-Decision-Id`
   * header when a `traceparent` is given.
   */
  decisionId: string;
  /** Absolute deadline, epoch ms. The worker caps it by the tool's `timeoutMs`. */
  deadline: number;
  /** W3C trace context, forwarded as the `traceparent` header. */
  traceparent?: string;
  /** sha256 of the policy that allowed the call: signed into the grant. */
  policySha256?: string;
}

export interface Dispatcher {
  /**
   * Sends one call to one instance of `tool` (the queue group picks it) and returns the
   * worker's reply, or a failure the dispatcher made up: `no_worker` (nobody serves the
   * tool, answered at once by NATS), `bus_unavailable` (the connection is down: nothing is
   * sent, rather than buffered until a reconnect), `dispatch_timeout` (no reply by the
   * deadline) or `bad_reply` (the reply is not a valid envelope; with reply binding, no reply
   * bound to the call came by the deadline, and some were refused). Those never throw.
   *
   * @throws SubjectTokenError when `tool` is not a valid tool name.
   * @throws the NATS client's error when the connection is closed or draining, or the
   *   server refuses the publish (permissions): faults of the brain, not of the call.
   */
  dispatch(tool: string, input: unknown, options: DispatchOptions): Promise<DispatchResult>;
  /**
   * Whether the connection is up now. The gateway asks before it records `tool.called`, so
   * a call the bus cannot carry is refused without claiming it was sent.
   */
  bus(): BusStatus;
}

/** setTimeout's ceiling; a later deadline is not a reason to fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The brain's dispatch client. Lean on purpose: it is on every tool call's path. */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { nc } = options;
  const logger = options.logger ?? silentLogger();
  const mux = new ReplyMux(nc, options.inboxPrefix);
  const graceMs = options.replyGraceMs ?? 200;
  const watch = options.connection ?? new ConnectionWatch(nc);
  const { signer, replies } = options;
  /** This brain's signature over its X25519 key, sent beside v2 grants; made once. */
  let dhSig: string | undefined;
  const onRefused = (tool: string, decisionId: string) => (r: Refusal, first: boolean) => {
    options.onRefusedReply?.(tool, r);
    const fields = { tool, decisionId, instance: r.instance, kind: r.kind, reason: r.reason };
    if (first)
      logger.warn(fields, 'refused a reply not bound to its call; waiting for the real one');
    else logger.debug(fields, 'refused another reply not bound to its call');
  };

  const inFlight = new Set<CallInFlight>();
  const { recovery } = options;
  let trigger = '';
  if (recovery !== undefined) {
    watch.onLoss((why) => {
      trigger = why.kind;
      for (const call of inFlight) {
        if (call.recovering) continue;
        call.recovering = true;
        void recoverCall(mux, call, recovery, logger).finally(() => (call.recovering = false));
      }
    });
  }

  const send = (
    tool: string,
    subject: string,
    input: unknown,
    opts: DispatchOptions,
    attempt: number,
    started: number,
    signed = false,
  ): Promise<DispatchResult> => {
    const left = opts.deadline - Date.now();
    if (!(left >= 1)) {
      const reason = 'the deadline passed before the call was sent';
      const message = errorMessage('dispatch_timeout', { tool, reason });
      return Promise.resolve(brainFailure('dispatch_timeout', message, started));
    }
    const timeout = Math.min(left + graceMs, MAX_TIMER_MS);
    const envelope: DispatchRequest = {
      v: 1,
      tool,
      input,
      decision_id: opts.decisionId,
      deadline: Math.floor(opts.deadline),
    };
    if (attempt > 0) envelope.attempt = attempt;
    let check: CallReplyCheck | undefined;
    let addressed = false;
    if (signer !== undefined && opts.policySha256 !== undefined) {
      const claims = {
        tool,
        input,
        decisionId: opts.decisionId,
        deadline: envelope.deadline,
        policySha256: opts.policySha256,
      };
      const to = signed ? undefined : replies?.grantInstances(tool);
      if (to !== undefined && replies !== undefined) {
        envelope.grant = signer.mac(claims, to);
        envelope.reply_dh_sig = dhSig ??= signer.signDh(replies.dhPublicKey);
        addressed = true;
      } else envelope.grant = signer.sign(claims);
      if (replies !== undefined) {
        envelope.reply_dh = replies.dhPublicKey;
        const nonce = grantNonce(envelope.grant)!;
        const refused = onRefused(tool, opts.decisionId);
        check = new CallReplyCheck(replies, tool, opts.decisionId, nonce, refused);
      }
    }
    // Headers only travel with a trace context: the envelope already carries the
    // decision id, and a header block costs ~12 us per call (docs/adr/0006).
    let headers: MsgHdrs | undefined;
    if (opts.traceparent !== undefined) {
      headers = natsHeaders();
      headers.set(HEADERS.decisionId, opts.decisionId);
      headers.set(HEADERS.traceparent, opts.traceparent);
    }
    let call: CallInFlight | undefined;
    const track =
      recovery === undefined
        ? undefined
        : (request: CallInFlight['request']) => {
            const { decisionId, deadline } = opts;
            const c = { tool, decisionId, attempt, deadline, check, request, recovering: false };
            inFlight.add((call = c));
          };
    // One `then` instead of async/await: the reply is parsed in the same microtask that
    // receives it, so a burst of replies issues its follow-up requests before nats.js
    // flushes, in one write (measured: see docs/benchmarks.md).
    // Buffer.from: pooled, several times cheaper than TextEncoder for envelope-sized strings.
    return mux
      .request(subject, Buffer.from(JSON.stringify(envelope)), timeout, headers, check, track)
      .then(
        (outcome): DispatchResult | Promise<DispatchResult> => {
          if (call !== undefined) inFlight.delete(call);
          if (outcome.kind === 'redispatch') {
            const how: Recovery = { how: 'redispatched', trigger, asked: outcome.asked };
            logger.info({ tool, decisionId: opts.decisionId }, 'sending a lost call again');
            return send(tool, subject, input, opts, attempt + 1, started).then((r) => ({
              ...r,
              recovery: how,
            }));
          }
          const read = settled(tool, opts.decisionId, outcome, check, timeout, started);
          if (addressed && !read.success && read.error.code === 'grant_unaddressed') {
            // an instance the registry did not list yet took it: its reply is bound, and it
            // ran nothing; the same call signed, which any instance checks (ADR 0108)
            logger.debug({ tool, decisionId: opts.decisionId }, 'sending the call again signed');
            options.onGrantResent?.(tool);
            return send(tool, subject, input, opts, attempt, started, true);
          }
          if (outcome.kind === 'reply' && outcome.recoveredFrom !== undefined) {
            const instance = outcome.recoveredFrom;
            const asked = [instance];
            return { ...read, recovery: { how: 'result', trigger, asked, instance } };
          }
          if (outcome.kind === 'unknown') {
            return { ...read, recovery: { how: 'outcome_unknown', trigger, asked: outcome.asked } };
          }
          return read;
        },
        (err: unknown) => {
          if (call !== undefined) inFlight.delete(call);
          throw err;
        },
      );
  };

  const settled = (
    tool: string,
    decisionId: string,
    outcome: MuxOutcome,
    check: CallReplyCheck | undefined,
    timeout: number,
    started: number,
  ): DispatchReply => {
    if (outcome.kind === 'reply') {
      if (check?.accepted) return check.accepted;
      const read = readReply(outcome.msg.data);
      if (typeof read !== 'string') return read.reply;
      logger.warn({ tool, decisionId, reason: read }, 'bad reply from worker');
      const message = errorMessage('bad_reply', { tool, reason: `it is ${read}` });
      return brainFailure('bad_reply', message, started);
    }
    if (outcome.kind === 'unknown') {
      const message = errorMessage('outcome_unknown', { tool, reason: outcome.reason });
      logger.warn(
        { tool, decisionId, reason: outcome.reason },
        'a lost call may or may not have run',
      );
      return brainFailure('outcome_unknown', message, started);
    }
    if (outcome.kind === 'timeout' && check?.first !== undefined) {
      const { first, refused } = check;
      const reason =
        `no reply bound to this call came within ${timeout} ms; ` +
        `${refused} refused (the first: ${first.reason})`;
      return brainFailure('bad_reply', errorMessage('bad_reply', { tool, reason }), started);
    }
    const failure =
      outcome.kind === 'no_responders'
        ? brainFailure(
            'no_worker',
            errorMessage('no_worker', { tool, start: 'no instance is connected' }),
            started,
          )
        : brainFailure(
            'dispatch_timeout',
            errorMessage('dispatch_timeout', { tool, reason: `no reply within ${timeout} ms` }),
            started,
          );
    logger.debug({ tool, decisionId, code: failure.error.code }, 'dispatch failed');
    return failure;
  };

  return {
    bus: () => watch.status(),
    dispatch(tool, input, opts) {
      const started = performance.now();
      let subject: string;
      try {
        subject = dispatchSubject(tool);
      } catch (err) {
        // a promise-returning API never throws synchronously
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
      const bus = watch.status();
      if (!bus.ok) {
        // nats.js would buffer the request, and the call would wait out its deadline
        const why = bus.detail ?? 'not connected';
        const message = errorMessage('bus_unavailable', { why, tool });
        return Promise.resolve(brainFailure('bus_unavailable', message, started));
      }
      return send(tool, subject, input, opts, 0, started);
    },
  };
}

function brainFailure(
  code: 'no_worker' | 'bus_unavailable' | 'dispatch_timeout' | 'bad_reply' | 'outcome_unknown',
  message: string,
  started: number,
): DispatchFailure {
  return {
    v: 1,
    success: false,
    error: { code, message, retryable: errorEntry(code).retryable },
    duration_ms: msSince(started),
  };
}
