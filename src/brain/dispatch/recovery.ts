import { Buffer } from 'node:buffer';
import type { Msg } from '@nats-io/nats-core';
import type { Logger } from '../../log/index.js';
import {
  HEADERS,
  RESULT_STATES,
  resultSubject,
  type ResultQuery,
  type ResultState,
} from '../../protocol/index.js';
import { readReply, type CallReplyCheck } from './reply-check.js';
import type { PendingRequest, ReplyMux } from './reply-mux.js';

/**
 * Recovering a call in flight when the bus lost messages (issue 34, ADR 0099). When the
 * brain's connection comes back, or the cluster drops a server a worker may have been on, the
 * dispatcher asks each listed instance of the call's tool, on that instance's own result
 * subject, what became of the call:
 * - `done`: the answer carries the reply as the worker sent it; it goes through the same
 *   checks as any reply (bound to this call, signed by the instance it names, which must be
 *   the instance asked) and is the call's answer;
 * - `running`: the reply will come the usual way; the call keeps waiting;
 * - `unknown` from every instance (none received it; each now refuses it if it still comes):
 *   an idempotent tool's call is dispatched once more, any other ends `outcome_unknown`.
 * An instance that does not answer (it may be reconnecting) is asked again until `askForMs`
 * has passed; then its silence counts as "may have run it".
 */

/** What the dispatcher reads about a tool: its instances and whether its spec is idempotent. */
export interface RecoveryTools {
  tool(name: string):
    | {
        readonly instances: readonly { readonly id: string }[];
        readonly spec: { readonly annotations?: { readonly idempotent?: boolean } };
      }
    | undefined;
}

export interface RecoveryOptions {
  /** The registry (or anything that lists instances and specs the same way). */
  tools: RecoveryTools;
  /**
   * How long after the bus came back to keep asking an instance that does not answer.
   * @default 1000
   */
  askForMs?: number;
}

/** One call in flight, as the dispatcher knows it. */
export interface CallInFlight {
  readonly tool: string;
  readonly decisionId: string;
  readonly attempt: number;
  readonly deadline: number;
  /** The call's reply check, with reply binding on (ADR 0060). */
  readonly check: CallReplyCheck | undefined;
  readonly request: PendingRequest;
  /** Whether a recovery is running for it now. */
  recovering: boolean;
}

/** Instances asked per call at most: the bound on one recovery's queries. */
const MAX_ASKED = 32;
/** How long one query waits for its answer. */
const QUERY_TIMEOUT_MS = 250;
/** The pause before asking again the instances that did not answer. */
const RETRY_MS = 50;

type Answer = { state: ResultState; msg: Msg } | undefined;

/** Recovers `call` (see the module comment); resolves once it has decided, never rejects. */
export async function recoverCall(
  mux: ReplyMux,
  call: CallInFlight,
  options: RecoveryOptions,
  logger: Logger,
): Promise<void> {
  const known = options.tools.tool(call.tool);
  const ids = (known?.instances ?? []).slice(0, MAX_ASKED).map((i) => i.id);
  const until = Math.min(call.deadline, Date.now() + (options.askForMs ?? 1000));
  const waiting = new Set(ids);
  const unknown: string[] = [];
  let running = false;
  const query: ResultQuery = {
    v: 1,
    decision_id: call.decisionId,
    deadline: Math.floor(call.deadline),
    ...(call.attempt > 0 ? { attempt: call.attempt } : {}),
  };
  const payload = Buffer.from(JSON.stringify(query));
  while (waiting.size > 0 && !call.request.ended) {
    const left = until - Date.now();
    if (left <= 0) break;
    const asked = [...waiting];
    const answers = await Promise.all(
      asked.map((id) => ask(mux, call.tool, id, payload, Math.min(QUERY_TIMEOUT_MS, left))),
    );
    for (const [i, answer] of answers.entries()) {
      const id = asked[i]!;
      if (answer === undefined) continue;
      waiting.delete(id);
      if (answer.state === 'running') running = true;
      else if (answer.state === 'unknown') unknown.push(id);
      else {
        const taken = accept(call, id, answer.msg, logger);
        if (taken === true) return;
        // its instance is being confirmed (ADR 0060): that check ends the call
        if (taken === 'checking') running = true;
      }
    }
    if (waiting.size > 0) await pause(RETRY_MS);
  }
  if (call.request.ended || running) return;
  const idempotent = known?.spec.annotations?.idempotent === true;
  const silent = [...waiting];
  logger.info(
    { tool: call.tool, decisionId: call.decisionId, unknown, silent, idempotent },
    'no instance could say what became of a call the bus lost',
  );
  if (idempotent && call.attempt === 0) {
    call.request.settle({ kind: 'redispatch', asked: ids });
    return;
  }
  const reason =
    silent.length > 0
      ? `the bus lost it or its reply, and ${silent.join(', ')} did not answer within ${options.askForMs ?? 1000} ms`
      : ids.length === 0
        ? 'the bus lost it or its reply, and no instance is listed to ask'
        : `the bus lost it or its reply, and ${ids.join(', ')} never received it or no longer remember${ids.length === 1 ? 's' : ''} it`;
  call.request.settle({ kind: 'unknown', reason, asked: ids });
}

/** One query; undefined when the instance did not answer (or answered nonsense). */
async function ask(
  mux: ReplyMux,
  tool: string,
  id: string,
  payload: Uint8Array,
  timeoutMs: number,
): Promise<Answer> {
  try {
    const outcome = await mux.request(resultSubject(tool, id), payload, timeoutMs);
    if (outcome.kind !== 'reply') return undefined;
    const state = outcome.msg.headers?.get(HEADERS.resultState) as ResultState | undefined;
    return state !== undefined && RESULT_STATES.includes(state)
      ? { state, msg: outcome.msg }
      : undefined;
  } catch {
    return undefined; // the connection dropped again: asked again, or silent
  }
}

/**
 * A `done` answer is the call's answer when it passes what any reply must (ADR 0060) and it
 * names the instance asked: an instance speaks for its own calls only.
 */
function accept(call: CallInFlight, id: string, msg: Msg, logger: Logger): boolean | 'checking' {
  const read = readReply(msg.data);
  const fields = { tool: call.tool, decisionId: call.decisionId, instance: id };
  if (typeof read === 'string' || read.reply.worker?.id !== id) {
    logger.warn(
      { ...fields, reason: typeof read === 'string' ? read : 'it names another instance' },
      'refused a recovered reply',
    );
    return false;
  }
  if (call.check === undefined) {
    return call.request.settle({ kind: 'reply', msg, recoveredFrom: id });
  }
  const recovered: PendingRequest = {
    get ended() {
      return call.request.ended;
    },
    settle: (o) => call.request.settle(o.kind === 'reply' ? { ...o, recoveredFrom: id } : o),
  };
  const refusedBefore = call.check.refused;
  if (call.check.screen(msg, recovered)) {
    return call.request.settle({ kind: 'reply', msg, recoveredFrom: id });
  }
  if (call.request.ended) return true;
  return call.check.refused > refusedBefore ? false : 'checking';
}

function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
