import {
  headers as natsHeaders,
  type Msg,
  type NatsConnection,
  type Subscription,
} from '@nats-io/nats-core';
import type { Logger } from '../log/index.js';
import {
  HEADERS,
  ResultQuerySchema,
  readWireJson,
  resultSubject,
  type WorkerRef,
} from '../protocol/index.js';
import type { ReplyCache } from './reply-cache.js';

/** Largest result query read: a decision id and two numbers. */
const MAX_QUERY_BYTES = 1024;

/**
 * How far back, from the moment the connection dropped, replies are sent again once it is
 * back: a reply written to the socket just before the server died may never have left it.
 */
const RESEND_WINDOW_MS = 500;

/** One instance's answers to the brain's result queries (ADR 0099). */
export function listenForResultQueries(
  nc: NatsConnection,
  tool: string,
  worker: WorkerRef,
  cache: ReplyCache,
  logger: Logger,
): Subscription {
  return nc.subscribe(resultSubject(tool, worker.id), {
    callback: (err, msg) => {
      if (err) logger.error({ err }, 'result query subscription failed');
      else answerQuery(msg, cache, logger);
    },
  });
}

function answerQuery(msg: Msg, cache: ReplyCache, logger: Logger): void {
  if (!msg.reply || msg.data.length > MAX_QUERY_BYTES) return;
  const read = readWireJson(msg.data);
  const query = 'value' in read ? ResultQuerySchema.safeParse(read.value) : undefined;
  if (!query?.success) {
    logger.debug('ignored a malformed result query');
    return;
  }
  const { decision_id: decisionId, attempt = 0, deadline } = query.data;
  const found = cache.ask(decisionId, attempt, deadline);
  const h = natsHeaders();
  h.set(HEADERS.resultState, found.state);
  try {
    // `done`: the reply as it was sent, signed and bound to its call; the brain checks it so
    msg.respond(found.state === 'done' ? found.reply.payload : new Uint8Array(0), { headers: h });
  } catch (err) {
    logger.debug({ err, decisionId }, 'could not answer a result query');
  }
  logger.debug({ decisionId, attempt, state: found.state }, 'answered a result query');
}

/**
 * Sends again, once the connection is back, the replies sent from shortly before it dropped
 * until it came back: the brain ignores one it already has (its request has ended), and a
 * call still waiting gets its answer without asking. Stops when the connection closes.
 *
 * Under least-privilege permissions a worker may publish a reply only on the connection that
 * received the request (nats-server's response permissions), so on a new server the send is
 * refused; the brain's result query is what recovers the call then.
 */
export function resendAfterReconnect(nc: NatsConnection, cache: ReplyCache, logger: Logger): void {
  void (async () => {
    let downSince: number | undefined;
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') downSince ??= Date.now();
      if (s.type !== 'reconnect' || downSince === undefined) continue;
      const replies = cache.sentSince(downSince - RESEND_WINDOW_MS);
      downSince = undefined;
      for (const r of replies) {
        try {
          nc.publish(r.to, r.payload, r.headers ? { headers: r.headers } : undefined);
        } catch (err) {
          logger.debug({ err }, 'could not send a reply again');
          break;
        }
      }
      if (replies.length > 0)
        logger.info({ replies: replies.length }, 'sent replies again after a reconnect');
    }
  })().catch(() => undefined);
}
