import type { AnyAuditEventInput, AppendResult, AuditLog } from '../../audit/index.js';
import type { AuditSink } from '../gateway/index.js';

/**
 * The audit log as the brain appends to it, remembering whether the last append worked:
 * `GET /readyz` reports the log not writable from the first failed append until the next
 * one succeeds.
 */
export class AuditHealth implements AuditSink {
  readonly #log: AuditLog;
  #failure: string | undefined;

  constructor(log: AuditLog) {
    this.#log = log;
  }

  async append(event: AnyAuditEventInput): Promise<AppendResult> {
    try {
      const r = await this.#log.append(event);
      this.#failure = undefined;
      return r;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      this.#failure = `last append failed${typeof code === 'string' ? ` (${code})` : ''}: ${(err as Error).message}`;
      throw err;
    }
  }

  status(): { ok: boolean; detail?: string } {
    return this.#failure === undefined ? { ok: true } : { ok: false, detail: this.#failure };
  }
}
