import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from '../../log/index.js';
import type { GrantSigner } from '../../protocol/grant.js';
import type { JobView } from '../api/index.js';
import { JobQueue, type JobAudit, type JobSubmission } from './job-queue.js';

/** What the brain does with jobs: the queue, or the stand-in that says why there is none. */
export interface Jobs {
  submit(s: JobSubmission): Promise<JobView>;
  activeCount(tool?: string): number;
  view(id: string): JobView | undefined;
  list(limit?: number): JobView[];
  cancel(id: string, by: string): Promise<JobView | undefined>;
  close(): Promise<void>;
}

/**
 * The brain's job queue on its connection (ADR 0098). A server without JetStream (an
 * operator's own nats-server started without `-js`) leaves the brain running: a call to a job
 * tool then fails, saying that JetStream is off, and the jobs the audit log knows stay readable.
 */
export async function startJobs(
  nc: NatsConnection,
  audit: JobAudit,
  signer: GrantSigner | undefined,
  logger: Logger,
  /** Copies of the job streams in a clustered JetStream (ADR 0101). @default 1 */
  replicas = 1,
): Promise<Jobs> {
  const inboxPrefix = (nc as unknown as { options?: { inboxPrefix?: string } }).options
    ?.inboxPrefix;
  try {
    return await JobQueue.start({
      nc,
      audit,
      ...(inboxPrefix === undefined ? {} : { inboxPrefix }),
      ...(signer === undefined ? {} : { signer }),
      replicas,
      logger,
    });
  } catch (err) {
    const why = (err as Error).message;
    logger.warn({ err }, 'jobs are off: the job queue could not start on this NATS server');
    return new NoJobs(audit, why);
  }
}

/** Jobs when the server has no JetStream: nothing is submitted; the record stays readable. */
class NoJobs implements Jobs {
  readonly #reading: ReturnType<typeof JobQueue.reader>;
  constructor(
    audit: JobAudit,
    readonly why: string,
  ) {
    this.#reading = JobQueue.reader(audit);
  }
  submit(): Promise<JobView> {
    return Promise.reject(new Error(`jobs are off on this brain (${this.why})`));
  }
  activeCount(): number {
    return 0;
  }
  view(id: string) {
    return this.#reading.view(id);
  }
  list(limit?: number) {
    return this.#reading.list(limit);
  }
  cancel(id: string): Promise<JobView | undefined> {
    return Promise.resolve(this.#reading.view(id));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}
