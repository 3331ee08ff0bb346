import { connectBusWhenReachable, readNkeySeed, type BusOptions } from '../bus/index.js';
import type { NatsConnection } from '@nats-io/nats-core';
import { secondsText, waitAtMost } from '../clock/index.js';
import type { Logger } from '../log/index.js';
import type { GrantVerifier } from '../protocol/grant.js';
import { ReplySigner } from '../protocol/reply-signature.js';
import type { WorkerRestarts } from '../protocol/index.js';
import type { AnyToolDefinition } from './actions.js';
import { serveTools, type ToolWorker } from './serve.js';
import type { JobTakerOptions } from './job-taker.js';

export interface RunToolsOptions {
  bus: BusOptions;
  logger: Logger;
  host?: string;
  config?: Record<string, unknown>;
  /** @default 10000 */
  graceMs?: number;
  /** Signed-grant checks (`ServeOptions.grants`). */
  grants?: GrantVerifier;
  /** Restarts under `caesar up`, declared in discovery (`ServeOptions.restarts`). */
  restarts?: WorkerRestarts;
  /** How job tools take jobs (`ServeOptions.jobs`, ADR 0098). */
  jobs?: JobTakerOptions;
  /** Called once the tools are served (for example to print a ready line). */
  onReady?: (worker: ToolWorker) => void;
}

/**
 * The worker process main loop behind `caesar legion serve-tool`: connect (waiting for a
 * server that is not reachable yet, with a log line per wait), serve, and on SIGINT/SIGTERM
 * stop gracefully, drain the connection and resolve with exit code 0. A second signal during
 * shutdown gives up at once with exit code 1.
 */
export async function runTools(
  tools: readonly AnyToolDefinition[],
  options: RunToolsOptions,
): Promise<number> {
  const replies = await replySigner(options.bus);
  const nc = await connectWaiting(options);
  let worker: ToolWorker;
  try {
    worker = await serveTools(tools, {
      nc,
      logger: options.logger,
      host: options.host,
      config: options.config,
      graceMs: options.graceMs,
      ...(options.grants ? { grants: options.grants } : {}),
      ...(options.restarts ? { restarts: options.restarts } : {}),
      ...(replies ? { replies } : {}),
      ...(options.jobs ? { jobs: options.jobs } : {}),
    });
  } catch (err) {
    await nc.close();
    throw err;
  }
  // The handlers go in before `onReady` says so: whoever reads "ready" may signal at once,
  // and a process preempted between the line and the handlers died of a plain SIGTERM.
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    const onSignal = (sig: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.once('SIGINT', () => process.exit(1));
      process.once('SIGTERM', () => process.exit(1));
      resolve(sig);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  options.onReady?.(worker);
  const closed = nc.closed().then((err) => err ?? new Error('connection closed'));
  const reason = await Promise.race([signalled, closed]);
  if (reason instanceof Error) {
    options.logger.error({ err: reason }, 'NATS connection closed for good');
    await worker.stop();
    return 1;
  }
  options.logger.info({ signal: reason }, 'stopping');
  await worker.stop();
  // Drain flushes pending replies; if the server is gone it would wait for a reconnect
  // that may never come, so it gets a few seconds and then the connection is closed.
  const drain = nc.drain().then(
    () => true,
    () => false,
  );
  const drained = (await waitAtMost(drain, 3000)) && (await drain);
  if (!drained) await nc.close().catch(() => undefined);
  return 0;
}

/**
 * The worker signs its answers with its NKEY identity (ADR 0060), the key nats-server
 * authenticated it with; with another kind of identity (a token, a creds file, none),
 * serveTools makes a key for this process.
 */
async function replySigner(bus: BusOptions): Promise<ReplySigner | undefined> {
  if (bus.auth?.kind !== 'nkey') return undefined;
  const { seed } = await readNkeySeed(bus.auth.seedFile);
  try {
    return new ReplySigner(seed);
  } finally {
    seed.fill(0);
  }
}

/** Connects, waiting out a server that is not up yet; SIGINT or SIGTERM stops the wait. */
async function connectWaiting(options: RunToolsOptions): Promise<NatsConnection> {
  const stop = new AbortController();
  const abort = () => stop.abort();
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  const servers = [options.bus.servers].flat().join(', ');
  try {
    return await connectBusWhenReachable(
      { ...options.bus, logger: options.logger },
      {
        signal: stop.signal,
        onWait: (err, delayMs, attempt) =>
          options.logger.warn(
            { servers, attempt, retryInMs: delayMs, reason: err.message },
            `NATS is not reachable yet; trying again in ${secondsText(delayMs)}`,
          ),
      },
    );
  } finally {
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
  }
}
