import type {
  AppendableEventType,
  AppendResult,
  AuditEventInput,
  AuditLog,
} from '../../audit/index.js';
import type { AuditSink } from '../gateway/index.js';
import { CaesarError } from '../../errors/index.js';

/**
 * The audit log as the brain appends to it, and whether it can be written: `GET /readyz`
 * reports the log not ready while its files cannot be written (asked of the kernel on every
 * probe, so a log made read-only before the brain started is reported at once, and one made
 * writable again is ready at once), and from a failed append until the next one succeeds.
 */
export class LiveAuditSink implements AuditSink {
  readonly #log: AuditLog;
  #failure: string | undefined;
  /** The last failure happened while the files were not writable: it ends when they are. */
  #failedUnwritable = false;
  readonly #listeners = new Set<(seq: number) => void>();

  constructor(log: AuditLog) {
    this.#log = log;
  }

  async append<T extends AppendableEventType>(event: AuditEventInput<T>): Promise<AppendResult> {
    let r: AppendResult;
    try {
      r = await this.#log.append(event);
    } catch (err) {
      const code = err instanceof CaesarError ? ` (${err.code})` : '';
      this.#failedUnwritable = this.#log.writableProblem() !== undefined;
      this.#failure = `last append failed${code}: ${(err as Error).message}`;
      throw err;
    }
    this.#failure = undefined;
    this.#failedUnwritable = false;
    // outside the try: a listener is not the log, so it can never mark an append failed
    for (const listener of this.#listeners) listener(r.seq);
    return r;
  }

  /**
   * Calls `listener` with the seq of each row committed from now on (the live tail); returns
   * the unsubscribe. A listener must not throw: it runs in the appender's turn.
   */
  onAppended(listener: (seq: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  status(): { ok: boolean; detail?: string } {
    const problem = this.#log.writableProblem();
    if (problem !== undefined) return { ok: false, detail: `not writable: ${problem}` };
    if (this.#failedUnwritable) this.#failure = undefined;
    return this.#failure === undefined ? { ok: true } : { ok: false, detail: this.#failure };
  }
}
