import { TimeoutError, type NatsConnection, type Subscription } from '@nats-io/nats-core';
import type {
  AppendableEventType,
  AppendResult,
  AuditEventInput,
  AuditQuery,
  AuditRecord,
} from '../../audit/index.js';
import { JetStreamLink, JetStreamSilent, ms, type Delivery } from '../../bus/jetstream.js';
import { whenJetStreamSettles } from '../../bus/jetstream-ready.js';
import { errorMessage } from '../../errors/index.js';
import { silentLogger, type Logger } from '../../log/index.js';
import {
  JOB_EVENT_CONSUMER,
  JOB_EVENT_STREAM,
  JOB_STREAM,
  JobEventSchema,
  JobHeartbeatSchema,
  MAX_ENVELOPE_BYTES,
  jobConsumer,
  jobSubject,
  jsApi,
  readWireJson,
  type JobDelivery,
  type JobEnvelope,
  type JobEvent,
} from '../../protocol/index.js';
import type { GrantSigner } from '../../protocol/grant.js';
import { secondsText, waitAtMost } from '../../clock/index.js';
import type { JobView } from '../api/index.js';
import { foldJob, isEnded, JOB_EVENT_TYPES } from './job-view.js';

/** The audit log as the job queue uses it: it writes job rows and reads them back. */
export interface JobAudit {
  append<T extends AppendableEventType>(event: AuditEventInput<T>): Promise<AppendResult>;
  query(query: AuditQuery): AuditRecord[];
}

export interface JobQueueOptions {
  nc: NatsConnection;
  audit: JobAudit;
  /** Where JetStream answers the brain: its connection's inbox prefix. @default '_INBOX' */
  inboxPrefix?: string;
  /** Signs each job's grant (ADR 0052), as the dispatcher signs a call's. */
  signer?: GrantSigner;
  /**
   * A running job whose worker is silent this long is lost: an `at_least_once` job is
   * redelivered (the consumer's ack wait), an `at_most_once` one fails `worker_lost`.
   * @default 30000
   */
  lapseMs?: number;
  /**
   * Copies of the streams in a clustered JetStream (ADR 0101): 3 survives a dead server.
   * @default 1
   */
  replicas?: number;
  /** Longest wait for a clustered JetStream to elect its leader at start. @default 30000 */
  settleTimeoutMs?: number;
  /** Told of every job row the queue writes, for the live tail. */
  onChange?: (view: JobView) => void;
  logger?: Logger;
}

/** What the gateway submits: a call it judged and recorded (`tool.called`). */
export interface JobSubmission {
  jobId: string;
  tool: string;
  input: unknown;
  deadline: number;
  delivery: JobDelivery;
  policySha256: string;
  actor: string;
  /** The principal the call was judged as (ADR 0096), for the `job.submitted` row. */
  principal?: string;
  sessionId: string | null;
}

interface Running {
  tool: string;
  delivery: JobDelivery;
  lastBeat: number;
  cancelRequested?: string;
}

const EVENT_PULL_WAIT_MS = 2000;
/**
 * Workers an `at_least_once` job may lose before it fails for good (ADR 0098): a job that
 * kills each worker it reaches would otherwise be redelivered for ever.
 */
export const MAX_JOB_ATTEMPTS = 3;

/**
 * The brain's side of jobs (ADR 0098): makes the work-queue stream, a durable consumer per job
 * tool and the event stream; submits judged calls; reads the workers' events through its own
 * durable consumer into audit rows (acked only once the row is durable, so an event that
 * arrives while the brain is down is read when it is back); watches heartbeats, failing an
 * `at_most_once` job whose worker fell silent; cancels. The audit log is its record: a job's
 * view is folded from its rows, so nothing about a job lives only in memory.
 */
export class JobQueue {
  readonly #o: JobQueueOptions;
  readonly #log: Logger;
  readonly #link: JetStreamLink;
  readonly #lapseMs: number;
  readonly #consumers = new Set<string>();
  readonly #running = new Map<string, Running>();
  readonly #active = new Map<string, string>();
  /**
   * Jobs whose `job.submitted` row is being written. A worker may take a quick job and report
   * its start and end while that row's fsync runs; the event reader waits for the row rather
   * than drop those events as strays (which left such a job queued for ever).
   */
  readonly #submitting = new Map<string, Promise<void>>();
  /** Jobs whose end row is being written, so a second decision waits for it. */
  readonly #ending = new Map<string, Promise<void>>();
  #heartbeats: Subscription | undefined;
  #sweep: NodeJS.Timeout | undefined;
  #closed = false;
  #loop: Promise<void> | undefined;

  private constructor(o: JobQueueOptions) {
    this.#o = o;
    this.#log = (o.logger ?? silentLogger()).child({ part: 'jobs' });
    this.#link = new JetStreamLink(o.nc, o.inboxPrefix ?? '_INBOX');
    this.#lapseMs = o.lapseMs ?? 30_000;
  }

  /** Makes the streams and the brain's consumer, and starts reading events. */
  static async start(o: JobQueueOptions): Promise<JobQueue> {
    const q = new JobQueue(o);
    try {
      await q.#setUp();
    } catch (err) {
      q.#link.close();
      throw err;
    }
    return q;
  }

  async #setUp(): Promise<void> {
    // a server without JetStream has no responder here: said at once (no-responders), so a
    // brain on such a server starts without waiting out a timeout; a clustered JetStream
    // answers "temporarily unavailable", or nothing, until it has a meta-leader
    await whenJetStreamSettles(
      async () => {
        await this.#o.nc.request(jsApi.info, '', { timeout: 2000 }).catch((err: unknown) => {
          throw err instanceof TimeoutError ? new JetStreamSilent(jsApi.info, 2000) : err;
        });
        await this.#makeStreams();
      },
      {
        what: 'job streams',
        logger: this.#log,
        ...(this.#o.settleTimeoutMs === undefined ? {} : { timeoutMs: this.#o.settleTimeoutMs }),
      },
    );
    this.#recover();
    this.#heartbeats = this.#o.nc.subscribe(jobSubject('heartbeat', '*'), {
      callback: (err, msg) => {
        if (err) return;
        const read = readWireJson(msg.data);
        if ('why' in read) return;
        const hb = JobHeartbeatSchema.safeParse(read.value);
        if (!hb.success) return;
        const r = this.#running.get(hb.data.job_id);
        // believed only on the tool's own subject (which permissions reserve to its workers)
        if (r !== undefined && msg.subject === jobSubject('heartbeat', r.tool, hb.data.job_id)) {
          r.lastBeat = Date.now();
        }
      },
    });
    this.#sweep = setInterval(() => void this.#sweepLost(), Math.max(100, this.#lapseMs / 4));
    this.#loop = this.#readEvents();
  }

  /** The two streams and the brain's consumer, each created or brought to this config. */
  async #makeStreams(): Promise<void> {
    const num_replicas = this.#o.replicas ?? 1;
    await this.#link.ensureStream({
      name: JOB_STREAM,
      subjects: [jobSubject('submit', '*')],
      retention: 'workqueue',
      storage: 'file',
      max_msg_size: MAX_ENVELOPE_BYTES,
      duplicate_window: ms(120_000),
      num_replicas,
    });
    await this.#link.ensureStream({
      name: JOB_EVENT_STREAM,
      subjects: [jobSubject('event', '*')],
      retention: 'limits',
      storage: 'file',
      max_msg_size: MAX_ENVELOPE_BYTES,
      max_age: ms(7 * 24 * 3600_000),
      duplicate_window: ms(120_000),
      num_replicas,
    });
    await this.#link.ensureConsumer(JOB_EVENT_STREAM, {
      durable_name: JOB_EVENT_CONSUMER,
      ack_wait: ms(30_000),
      max_deliver: -1,
    });
  }

  /** Jobs not yet ended, from the audit log: after a restart the brain knows them again. */
  #recover(): void {
    const submitted = this.#o.audit.query({ types: ['job.submitted'], limit: 10_000 });
    const ended = new Set(
      this.#o.audit
        .query({ types: ['job.finished', 'job.failed'], limit: 10_000 })
        .map((r) => r.decisionId),
    );
    for (const r of submitted) {
      if (r.decisionId === null || r.tool === null || ended.has(r.decisionId)) continue;
      this.#active.set(r.decisionId, r.tool);
      const view = this.view(r.decisionId);
      if (view?.status === 'running') {
        // heartbeats missed while the brain was down are not held against the worker
        this.#running.set(view.id, {
          tool: view.tool,
          delivery: view.delivery,
          lastBeat: Date.now(),
        });
      }
    }
    if (this.#active.size > 0) this.#log.info({ active: this.#active.size }, 'jobs recovered');
  }

  /** Jobs not yet ended: all, or one tool's. */
  activeCount(tool?: string): number {
    if (tool === undefined) return this.#active.size;
    let n = 0;
    for (const t of this.#active.values()) if (t === tool) n++;
    return n;
  }

  /**
   * Puts a judged call on the work queue and records `job.submitted`. The caller wrote
   * `tool.called` first. @throws when the stream does not take it (JetStream down)
   */
  async submit(s: JobSubmission): Promise<JobView> {
    await this.#ensureConsumer(s.tool);
    const envelope: JobEnvelope = {
      v: 1,
      job_id: s.jobId,
      tool: s.tool,
      input: s.input,
      decision_id: s.jobId,
      deadline: s.deadline,
      delivery: s.delivery,
      submitted_at: Date.now(),
    };
    if (this.#o.signer !== undefined) {
      envelope.grant = this.#o.signer.sign({
        tool: s.tool,
        input: s.input,
        decisionId: s.jobId,
        deadline: s.deadline,
        policySha256: s.policySha256,
      });
    }
    let recorded!: () => void;
    this.#submitting.set(s.jobId, new Promise<void>((resolve) => (recorded = resolve)));
    try {
      const seq = await this.#link.publish(jobSubject('submit', s.tool), envelope, s.jobId);
      this.#active.set(s.jobId, s.tool);
      const payload = {
        job_id: s.jobId,
        delivery: s.delivery,
        deadline: s.deadline,
        stream_seq: seq,
      };
      await this.#append(
        'job.submitted',
        s.jobId,
        s.tool,
        payload,
        'pending',
        s.actor,
        s.sessionId,
        s.principal,
      );
    } finally {
      this.#submitting.delete(s.jobId);
      recorded();
    }
    return this.view(s.jobId)!;
  }

  /** The job's view from its audit rows; undefined for an unknown id. */
  view(jobId: string): JobView | undefined {
    return JobQueue.reader(this.#o.audit).view(jobId);
  }

  /** The newest jobs first. */
  list(limit = 50): JobView[] {
    return JobQueue.reader(this.#o.audit).list(limit);
  }

  /** Reading jobs from the audit log, with or without a queue. */
  static reader(audit: Pick<JobAudit, 'query'>): {
    view(jobId: string): JobView | undefined;
    list(limit?: number): JobView[];
  } {
    const view = (jobId: string) =>
      foldJob(
        audit.query({
          decisionId: jobId,
          types: [...JOB_EVENT_TYPES],
          order: 'oldest',
          limit: 10_000,
        }),
      );
    return {
      view,
      list: (limit = 50) =>
        audit
          .query({ types: ['job.submitted'], limit })
          .flatMap((r) => (r.decisionId === null ? [] : (view(r.decisionId) ?? []))),
    };
  }

  /**
   * Cancels a job: takes it off the queue if no worker started it (then `job.failed` with
   * `job_cancelled` at once), and tells a running one's worker, whose AbortSignal fires (its
   * worker writes the row). Undefined for an unknown id; an ended job is returned as it is.
   */
  async cancel(jobId: string, by: string): Promise<JobView | undefined> {
    const view = this.view(jobId);
    if (view === undefined || isEnded(view.status)) return view;
    this.#o.nc.publish(jobSubject('cancel', view.tool, jobId));
    const removed = await this.#link.deleteMessage(JOB_STREAM, view.stream_seq);
    if (view.status === 'queued') {
      if (!removed) this.#log.warn({ jobId }, 'cancelled job was no longer on the queue');
      await this.#cancelled(view, by);
    } else {
      const r = this.#running.get(jobId);
      if (r !== undefined) r.cancelRequested = by;
    }
    return this.view(jobId);
  }

  /**
   * An `at_least_once` job whose every worker died on it: off the queue (a worker that took
   * it meanwhile is told to stop), failed `job_attempts_exhausted`, never redelivered again.
   */
  async #exhausted(view: JobView, attempts: number): Promise<void> {
    this.#o.nc.publish(jobSubject('cancel', view.tool, view.id));
    await this.#link.deleteMessage(JOB_STREAM, view.stream_seq);
    const message = errorMessage('job_attempts_exhausted', {
      job: view.id,
      tool: view.tool,
      attempts: String(attempts),
    });
    const error = { code: 'job_attempts_exhausted', message, retryable: false };
    const payload = { job_id: view.id, error, ...(view.worker ? { worker: view.worker } : {}) };
    if (await this.#end(view.id, view.tool, 'job.failed', payload, 'error', 'brain')) {
      this.#log.warn(
        { jobId: view.id, tool: view.tool, attempts },
        'job failed: every worker died on it',
      );
    }
  }

  async #cancelled(view: JobView, by: string): Promise<void> {
    const message = errorMessage('job_cancelled', { job: view.id, by });
    const error = { code: 'job_cancelled', message, retryable: false };
    await this.#end(view.id, view.tool, 'job.failed', { job_id: view.id, error }, 'error', by);
  }

  async #ensureConsumer(tool: string): Promise<void> {
    if (this.#consumers.has(tool)) return;
    await this.#link.ensureConsumer(JOB_STREAM, {
      durable_name: jobConsumer(tool),
      filter_subject: jobSubject('submit', tool),
      ack_wait: ms(this.#lapseMs),
      max_deliver: -1,
    });
    this.#consumers.add(tool);
  }

  async #readEvents(): Promise<void> {
    while (!this.#closed) {
      let d: Delivery | undefined;
      try {
        d = await this.#link.next(JOB_EVENT_STREAM, JOB_EVENT_CONSUMER, EVENT_PULL_WAIT_MS);
      } catch (err) {
        if (this.#closed) return;
        this.#log.warn({ err }, 'job event pull failed');
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (d === undefined) continue;
      try {
        await this.#take(d);
        // acked through a clustered JetStream's leader change too: an event read twice would
        // be dropped as a repeat, but its row is written once only if the ack lands
        await whenJetStreamSettles(() => this.#link.confirmAck(d), {
          what: 'job event ack',
          logger: this.#log,
        });
      } catch (err) {
        // not acked: read again after the ack wait
        this.#log.error({ err }, 'job event not recorded');
      }
    }
  }

  /** One worker event into its audit row; a malformed or stray event is dropped. */
  async #take(d: Delivery): Promise<void> {
    const read = readWireJson(d.msg.data);
    const parsed = 'why' in read ? undefined : JobEventSchema.safeParse(read.value);
    if (parsed === undefined || !parsed.success) {
      this.#log.warn({ subject: d.msg.subject }, 'malformed job event dropped');
      return;
    }
    const e = parsed.data;
    await this.#submitting.get(e.job_id);
    const view = this.view(e.job_id);
    // a worker speaks only on its own tool's subject, and only about that tool's jobs
    if (
      view === undefined ||
      view.tool !== e.tool ||
      d.msg.subject !== jobSubject('event', view.tool, e.job_id)
    ) {
      this.#log.warn({ subject: d.msg.subject, jobId: e.job_id }, 'stray job event dropped');
      return;
    }
    // ended, or ending: another decision's row is being written
    if (isEnded(view.status) || !this.#active.has(e.job_id)) {
      // cancelled while a worker took it: tell that worker again
      if (e.kind === 'started') this.#o.nc.publish(jobSubject('cancel', view.tool, e.job_id));
      return;
    }
    if (e.kind === 'started' && view.status === 'running' && view.attempt === e.attempt) {
      // read again after its ack was lost (a leader change): already recorded
      return;
    }
    await this.#record(view, e);
  }

  async #record(view: JobView, e: JobEvent): Promise<void> {
    const base = { job_id: e.job_id, attempt: e.attempt };
    const actor = `worker:${e.worker.host}`;
    if (e.kind === 'started' && e.attempt > MAX_JOB_ATTEMPTS) {
      // JetStream redelivered it once more after its last worker died: not run again
      await this.#exhausted(view, e.attempt - 1);
    } else if (e.kind === 'started') {
      this.#running.set(e.job_id, {
        tool: view.tool,
        delivery: view.delivery,
        lastBeat: Date.now(),
      });
      await this.#append(
        'job.started',
        e.job_id,
        view.tool,
        { ...base, worker: e.worker },
        'ok',
        actor,
      );
    } else if (e.kind === 'progress') {
      await this.#append(
        'job.progress',
        e.job_id,
        view.tool,
        { ...base, ...e.progress },
        'ok',
        actor,
      );
    } else if (e.kind === 'finished') {
      const payload = { ...base, result: e.result, duration_ms: e.duration_ms, worker: e.worker };
      await this.#end(e.job_id, view.tool, 'job.finished', payload, 'ok', actor);
    } else {
      const payload = { ...base, error: e.error, duration_ms: e.duration_ms, worker: e.worker };
      await this.#end(e.job_id, view.tool, 'job.failed', payload, 'error', actor);
    }
  }

  async #end<T extends 'job.finished' | 'job.failed'>(
    jobId: string,
    tool: string,
    type: T,
    payload: AuditEventInput<T>['payload'],
    outcome: 'ok' | 'error',
    actor: string,
  ): Promise<boolean> {
    this.#running.delete(jobId);
    // one end a job: the sweep, the event reader and a cancel may each decide it at once, each
    // having read the job's view before the other's row was written. The first one writes;
    // the others wait for its row, so what they then read is the job's end
    const ending = this.#ending.get(jobId);
    if (ending !== undefined) {
      await ending.catch(() => undefined);
      return false;
    }
    if (!this.#active.delete(jobId)) return false;
    const written = this.#append(type, jobId, tool, payload, outcome, actor);
    this.#ending.set(jobId, written);
    try {
      await written;
    } finally {
      this.#ending.delete(jobId);
    }
    return true;
  }

  /**
   * Running jobs whose worker fell silent: an `at_most_once` one fails `worker_lost` (it was
   * taken off the queue, so nothing else runs it); a cancelled one fails `job_cancelled`; an
   * `at_least_once` one is left to JetStream, which redelivers it after the same lapse.
   */
  async #sweepLost(): Promise<void> {
    const now = Date.now();
    for (const [jobId, r] of this.#running) {
      const silent = now - r.lastBeat;
      if (silent <= this.#lapseMs) continue;
      const view = this.view(jobId);
      if (view === undefined || isEnded(view.status)) {
        this.#running.delete(jobId);
        continue;
      }
      if (r.cancelRequested !== undefined) {
        await this.#cancelled(view, r.cancelRequested);
      } else if (r.delivery === 'at_most_once') {
        const lapse = secondsText(silent);
        const message = errorMessage('worker_lost', { job: jobId, lapse, tool: r.tool });
        const error = { code: 'worker_lost', message, retryable: true };
        const payload = { job_id: jobId, error, ...(view.worker ? { worker: view.worker } : {}) };
        if (await this.#end(jobId, r.tool, 'job.failed', payload, 'error', 'brain')) {
          this.#log.warn({ jobId, tool: r.tool }, 'job failed: its worker was lost');
        }
      } else if ((view.attempt ?? 1) >= MAX_JOB_ATTEMPTS) {
        await this.#exhausted(view, view.attempt ?? 1);
      } else {
        // redelivered by JetStream; the next worker's `started` resets the clock
        r.lastBeat = now;
      }
    }
  }

  async #append<T extends AppendableEventType>(
    type: T,
    jobId: string,
    tool: string,
    payload: AuditEventInput<T>['payload'],
    outcome: NonNullable<AuditEventInput['outcome']>,
    actor: string,
    sessionId: string | null = null,
    principal?: string,
  ): Promise<void> {
    await this.#o.audit.append({
      type,
      actor,
      ...(principal === undefined ? {} : { principal }),
      outcome,
      decisionId: jobId,
      sessionId,
      tool,
      payload,
    });
    if (this.#o.onChange !== undefined) {
      const view = this.view(jobId);
      if (view !== undefined) this.#o.onChange(view);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#heartbeats?.unsubscribe();
    if (this.#sweep) clearInterval(this.#sweep);
    // an idle pull ends now, not after its wait; an event being recorded is finished first
    this.#link.endPull();
    if (this.#loop !== undefined) await waitAtMost(this.#loop, EVENT_PULL_WAIT_MS + 1500);
    this.#link.close();
  }
}
