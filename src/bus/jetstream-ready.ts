import type { Logger } from '../log/index.js';
import { JetStreamApiError, JetStreamSilent } from './jetstream.js';

/**
 * JetStream's codes for "not now" (ADR 0101): a clustered JetStream answers 503 "JetStream
 * system temporarily unavailable" (10008) until its servers have elected a meta-leader, and
 * "no suitable peers for placement" (10005) while the leader has not yet met enough servers
 * to place a replicated stream.
 */
const NO_SUITABLE_PEERS = 10005;

/** Whether `err` says that JetStream is electing or placing, so asking again may succeed. */
export function isJetStreamSettling(err: unknown): boolean {
  if (err instanceof JetStreamSilent) return true;
  return (
    err instanceof JetStreamApiError && (err.apiCode === 503 || err.errCode === NO_SUITABLE_PEERS)
  );
}

export interface SettleOptions {
  /** What is being done, for the log line. */
  what: string;
  logger: Logger;
  /** Give up after this long, throwing the last answer. @default 30000 */
  timeoutMs?: number;
  /** First wait between tries; doubled each time. @default 100 */
  backoffMs?: number;
  /** @default 2000 */
  maxBackoffMs?: number;
}

/**
 * Runs `attempt` until it succeeds, trying again with a doubling wait while JetStream is
 * still electing its meta-leader or placing a stream ({@link isJetStreamSettling}), never
 * longer than `timeoutMs`: a clustered JetStream that never settles fails the caller with its
 * last answer instead of hanging it. Any other error is thrown at once. Says once, at info,
 * that it waits, and how long it waited when done.
 */
export async function whenJetStreamSettles<T>(
  attempt: () => Promise<T>,
  o: SettleOptions,
): Promise<T> {
  const t0 = Date.now();
  const until = t0 + (o.timeoutMs ?? 30_000);
  let wait = o.backoffMs ?? 100;
  let tries = 0;
  for (;;) {
    try {
      const value = await attempt();
      if (tries > 0)
        o.logger.info({ waitedMs: Date.now() - t0, tries }, `${o.what}: JetStream ready`);
      return value;
    } catch (err) {
      if (!isJetStreamSettling(err) || Date.now() + wait > until) throw err;
      if (tries === 0) {
        o.logger.info(
          { reason: (err as Error).message, timeoutMs: until - t0 },
          `${o.what}: waiting for the JetStream meta-leader (a clustered JetStream elects one once its servers meet)`,
        );
      }
      tries++;
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(wait * 2, o.maxBackoffMs ?? 2000);
    }
  }
}
