import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { JetStreamLink, type Delivery } from '../bus/jetstream.js';
import { whenJetStreamSettles } from '../bus/jetstream-ready.js';
import type { Logger } from '../log/index.js';
import { errorMessage } from '../errors/index.js';
import {
  CaesarError,
  fieldIssuesOf,
  JOB_STREAM,
  JobEnvelopeSchema,
  MAX_JOB_RESULT_BYTES,
  MAX_JOB_PROGRESS_CHARS,
  jobConsumer,
  jobInboxPrefix,
  jobSubject,
  readWireJson,
  summariseFieldIssues,
  type ErrorBody,
  type HostCapacity,
  type JobEnvelope,
  type JobEvent,
  type JobHeartbeat,
  type JobProgress,
  type WorkerRef,
} from '../protocol/index.js';
import type { GrantVerifier } from '../protocol/grant.js';
import { roundMs, waitAtMost } from '../clock/index.js';
import type { ToolContext } from './context.js';
import type { ToolDefinition } from './define.js';
import { hostShortfalls } from './host-shortfalls.js';
import { toErrorBody } from './call-handler.js';

/** How a worker takes jobs (ADR 0098). */
export interface JobTakerOptions {
  /** How often a running job says it is alive (progress ack + heartbeat). @default 5000 */
  heartbeatMs?: number;
  /** How long one pull waits for a job. @default 10000 */
  pullWaitMs?: number;
  /**
   * How long a job's `started`, `finished` or `failed` event and its ack are tried again while
   * a clustered JetStream elects a new leader (ADR 0101). @default 30000
   */
  settleMs?: number;
}

interface JobTakerDeps extends JobTakerOptions {
  nc: NatsConnection;
  tool: ToolDefinition;
  config: unknown;
  worker: WorkerRef;
  logger: Logger;
  capacity: HostCapacity;
  grants?: GrantVerifier;
}

/** A tool's job loop on one worker; `stop()` ends it. */
export interface JobTaker {
  /** Jobs running now. */
  readonly running: number;
  /**
   * Stops pulling, then ends every running job: an `at_least_once` job is given back to the
   * queue (another worker runs it at once), an `at_most_once` one fails `timeout`.
   */
  stop(): Promise<void>;
}

const PROGRESS_GAP_MS = 500;

/**
 * Takes a job tool's jobs from its JetStream consumer, one pull at a time and only while the
 * host meets the spec's requirements and the tool has a free slot (`max_concurrency`). Each
 * job is checked like a call (envelope, grant, input), run with an AbortSignal that a cancel
 * or its deadline fires, kept alive with progress acks and heartbeats, and ended with a
 * `finished` or `failed` event in the event stream before its message is acked.
 */
export function startJobTaker(deps: JobTakerDeps): JobTaker {
  const name = deps.tool.spec.name;
  const consumer = jobConsumer(name);
  const heartbeatMs = deps.heartbeatMs ?? 5000;
  const pullWaitMs = deps.pullWaitMs ?? 10_000;
  const settleMs = deps.settleMs ?? 30_000;
  const log = deps.logger.child({ jobs: consumer });
  const link = new JetStreamLink(deps.nc, jobInboxPrefix(name));
  const running = new Map<string, AbortController>();
  const settled = new Set<Promise<void>>();
  // a delivery holds its slot from the pull, not from its start: an at_most_once job is acked
  // before it runs, and a pull meanwhile would take a job past max_concurrency
  let taken = 0;
  let stopped = false;
  let wake: (() => void) | undefined;

  const cancels: Subscription = deps.nc.subscribe(jobSubject('cancel', name, '*'), {
    callback: (err, msg) => {
      if (err) return;
      const id = msg.subject.split('.').pop() ?? '';
      running.get(id)?.abort(CaesarError.of('job_cancelled', { job: id, by: 'the operator' }));
    },
  });

  const shortfalls = hostShortfalls(deps.tool.spec.resource_requirements, deps.capacity);
  if (shortfalls.length > 0) {
    log.warn({ shortfalls }, "this host does not meet the tool's requirements: it takes no jobs");
  }

  const loop = async () => {
    if (shortfalls.length > 0) return;
    while (!stopped) {
      if (taken >= deps.tool.spec.max_concurrency) {
        await new Promise<void>((r) => (wake = r));
        continue;
      }
      let d: Delivery | undefined;
      try {
        d = await link.next(JOB_STREAM, consumer, pullWaitMs);
      } catch (err) {
        log.warn({ err }, 'job pull failed');
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      if (d === undefined) continue;
      if (stopped) {
        link.nak(d);
        break;
      }
      taken++;
      const job = run(d).finally(() => {
        taken--;
        settled.delete(job);
        wake?.();
        wake = undefined;
      });
      settled.add(job);
    }
  };

  const run = async (d: Delivery): Promise<void> => {
    const env = readEnvelope(d, name);
    if ('error' in env) {
      // a message no worker can run is taken off the queue, never retried for ever
      log.warn({ reason: env.error }, 'job refused');
      await link.ack(d);
      return;
    }
    const job = env.job;
    const jlog = log.child({ jobId: job.job_id, attempt: d.attempt });
    const t0 = performance.now();
    // an event or an ack outlasts a clustered JetStream's leader change; the event's
    // Nats-Msg-Id keeps one that was stored before its answer was lost from being stored twice
    const surely = <T>(what: string, attempt: () => Promise<T>) =>
      whenJetStreamSettles(attempt, { what, logger: jlog, timeoutMs: settleMs });
    const ack = () => surely('job ack', () => link.confirmAck(d));
    const publishEvent = (
      e: DistributiveOmit<JobEvent, 'v' | 'job_id' | 'tool' | 'worker' | 'attempt' | 'at'>,
    ) =>
      link.publish(
        jobSubject('event', name, job.job_id),
        {
          v: 1,
          job_id: job.job_id,
          tool: name,
          worker: deps.worker,
          attempt: d.attempt,
          at: Date.now(),
          ...e,
        },
        `${job.job_id}.${d.attempt}.${e.kind}.${e.kind === 'progress' ? Date.now() : ''}`,
      );
    const event = (e: Parameters<typeof publishEvent>[0]) =>
      surely(`job ${e.kind} event`, () => publishEvent(e));
    const fail = async (error: ErrorBody) => {
      await event({ kind: 'failed', error, duration_ms: roundMs(performance.now() - t0) });
      await ack();
    };
    const refusal = checkJob(deps, job);
    if (refusal !== undefined) {
      jlog.warn({ code: refusal.code }, 'job refused');
      await fail(refusal);
      return;
    }
    const input = deps.tool.input.safeParse(job.input);
    if (!input.success) {
      const issues = summariseFieldIssues(fieldIssuesOf(input.error));
      const message = errorMessage('invalid_input', { tool: name, issues });
      await fail({ code: 'invalid_input', message, retryable: false });
      return;
    }
    // at most once: off the queue before it starts, so a lost worker can never run it twice
    if (job.delivery === 'at_most_once') {
      try {
        await ack();
      } catch (err) {
        jlog.warn({ err }, 'could not take the job off the queue; leaving it');
        return;
      }
    }
    const controller = new AbortController();
    running.set(job.job_id, controller);
    const deadline = Math.min(job.deadline, Date.now() + deps.tool.spec.timeout_ms);
    const deadlineTimer = setTimeout(
      () =>
        controller.abort(CaesarError.of('timeout', { reason: 'the job ran past its deadline' })),
      Math.max(0, deadline - Date.now()),
    );
    const beat = () => {
      if (job.delivery === 'at_least_once') link.working(d);
      const hb: JobHeartbeat = { v: 1, job_id: job.job_id, worker: deps.worker, at: Date.now() };
      deps.nc.publish(jobSubject('heartbeat', name, job.job_id), JSON.stringify(hb));
    };
    const heartbeat = setInterval(beat, heartbeatMs);
    let lastProgress = 0;
    const progress = (p: JobProgress) => {
      const now = Date.now();
      if (now - lastProgress < PROGRESS_GAP_MS && p.fraction !== 1) return;
      lastProgress = now;
      const msg = p.message?.slice(0, MAX_JOB_PROGRESS_CHARS);
      const clean = {
        ...(p.fraction === undefined ? {} : { fraction: Math.min(1, Math.max(0, p.fraction)) }),
        ...(msg === undefined ? {} : { message: msg }),
      };
      // progress is not tried again: the next report, or the end, supersedes it
      publishEvent({ kind: 'progress', progress: clean }).catch((err: unknown) =>
        jlog.warn({ err }, 'progress not recorded'),
      );
    };
    try {
      beat();
      await event({ kind: 'started' });
      jlog.info('job started');
      const ctx: ToolContext = {
        logger: jlog,
        signal: controller.signal,
        decisionId: job.decision_id,
        deadline,
        config: deps.config,
        worker: deps.worker,
        progress,
        attempt: d.attempt,
      };
      const outcome = await settle(deps, input.data, ctx, controller.signal);
      if (stopping(controller) && job.delivery === 'at_least_once') {
        // the worker is stopping: give the job back for another worker, say nothing
        link.nak(d);
        jlog.info('job given back: the worker is stopping');
        return;
      }
      const duration_ms = roundMs(performance.now() - t0);
      if (outcome.ok) {
        await event({ kind: 'finished', result: outcome.result, duration_ms });
      } else {
        await event({ kind: 'failed', error: outcome.error, duration_ms });
      }
      if (job.delivery === 'at_least_once') await ack();
      jlog.info({ ok: outcome.ok, duration_ms }, 'job ended');
    } catch (err) {
      jlog.error({ err }, 'job could not be reported; it stays unacked and is redelivered');
    } finally {
      clearInterval(heartbeat);
      clearTimeout(deadlineTimer);
      running.delete(job.job_id);
    }
  };

  const loopDone = loop().catch((err: unknown) => log.error({ err }, 'job loop ended'));

  return {
    get running() {
      return running.size;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      wake?.();
      cancels.unsubscribe();
      for (const c of running.values()) c.abort(STOPPING);
      await Promise.allSettled([...settled]);
      // a pull in flight ends now; a delivery that comes for it anyway is given back
      link.endPull();
      await waitAtMost(loopDone, 100);
      link.close();
    },
  };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const STOPPING = CaesarError.of('timeout', { reason: 'the worker is stopping' });

function stopping(c: AbortController): boolean {
  return c.signal.aborted && c.signal.reason === STOPPING;
}

type Outcome = { ok: true; result: unknown } | { ok: false; error: ErrorBody };

/** Runs the handler to its end, or until its signal fires; checks the output and its size. */
async function settle(
  deps: JobTakerDeps,
  input: unknown,
  ctx: ToolContext,
  signal: AbortSignal,
): Promise<Outcome> {
  const aborted = new Promise<Outcome>((resolve) => {
    const onAbort = () => resolve({ ok: false, error: toErrorBody(signal.reason) });
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  const ran = (async (): Promise<Outcome> => {
    try {
      const value: unknown = await deps.tool.handler(input, ctx);
      const out = deps.tool.output.safeParse(value);
      if (!out.success) {
        const reason = `${deps.tool.spec.name} produced output that does not match its schema`;
        return { ok: false, error: toErrorBody(CaesarError.of('internal', { reason })) };
      }
      const bytes = Buffer.byteLength(JSON.stringify(out.data));
      if (bytes > MAX_JOB_RESULT_BYTES) {
        const error = CaesarError.of('result_too_large', {
          tool: deps.tool.spec.name,
          bytes,
          limit: MAX_JOB_RESULT_BYTES,
          limitedBy: 'a job result',
        });
        return { ok: false, error: toErrorBody(error) };
      }
      return { ok: true, result: out.data };
    } catch (err) {
      return { ok: false, error: toErrorBody(err) };
    }
  })();
  return Promise.race([ran, aborted]);
}

/** The grant and the deadline, as a call's are checked; undefined when the job may run. */
function checkJob(deps: JobTakerDeps, job: JobEnvelope): ErrorBody | undefined {
  if (deps.grants !== undefined) {
    const { tool, input, decision_id: decisionId, deadline } = job;
    const verdict = deps.grants.check(job.grant, { tool, input, decisionId, deadline });
    if (!verdict.ok) {
      const message = errorMessage('grant_rejected', { reason: verdict.reason });
      return { code: 'grant_rejected', message, retryable: false };
    }
  }
  if (job.deadline <= Date.now()) {
    return toErrorBody(CaesarError.of('timeout', { reason: 'the job waited past its deadline' }));
  }
  return undefined;
}

function readEnvelope(d: Delivery, tool: string): { job: JobEnvelope } | { error: string } {
  const read = readWireJson(d.msg.data);
  if ('why' in read) return { error: read.why };
  const parsed = JobEnvelopeSchema.safeParse(read.value);
  if (!parsed.success) return { error: summariseFieldIssues(fieldIssuesOf(parsed.error)) };
  if (parsed.data.tool !== tool) return { error: `the job names tool ${parsed.data.tool}` };
  return { job: parsed.data };
}
