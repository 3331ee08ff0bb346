import {
  describePreflight,
  withLimitWarnings,
  type PreflightResult,
} from '../../brain/preflight/index.js';
import type { ToolLimits } from '../../config/index.js';
import type { PreflightReply } from '../../protocol/preflight.js';
import { splitCallable } from '../../protocol/index.js';

/** How long `caesar up` waits for each tool's preflight once every child is ready. */
export const PREFLIGHT_TIMEOUT_MS = 5000;

/**
 * What each worker's preflight found (is its backend configured and reachable?), as the
 * workers report it over their IPC channel (`worker_preflight`) once they serve: one line per
 * tool for `caesar up` to print before `ready:` (`calculator: ready`, `web_search: not
 * configured: set …`). The supervisor holds no NATS client to ask (ADR 0048, addendum 2); the
 * brain asks over NATS for `GET /v1/tools`. Each answer carries a warning per requirement
 * beyond the operator's `tools.limits` after the worker's own, as the brain's answers do
 * (ADR 0091): `caesar up` says what the brain will ask a human about.
 */
export class PreflightBoard {
  readonly #limits: ToolLimits;
  readonly #results = new Map<string, PreflightResult>();
  readonly #waiters = new Set<() => void>();

  constructor(limits: ToolLimits) {
    this.#limits = limits;
  }

  /**
   * A worker's replies, one per tool it serves; a later report replaces an earlier one.
   * Returns them as kept, the operator's warnings added.
   */
  report(replies: readonly PreflightReply[]): PreflightReply[] {
    const at = Date.now();
    const kept = replies.map((reply) => withLimitWarnings(reply, this.#limits));
    for (const reply of kept) this.#results.set(reply.tool, { reply, at });
    for (const wake of this.#waiters) wake();
    return kept;
  }

  /**
   * One line per tool, in the order given (a tool with actions: one per action, ADR 0092),
   * once every tool has reported or `timeoutMs` has passed; a tool that has not reported by
   * then says so.
   */
  async lines(tools: readonly string[], timeoutMs = PREFLIGHT_TIMEOUT_MS): Promise<string[]> {
    await this.#allReported(tools, timeoutMs);
    const seconds = timeoutMs / 1000;
    return tools.flatMap((tool) => {
      const reported = this.#reportedFor(tool);
      if (reported.length === 0) {
        return [
          describePreflight(tool, { error: `no answer within ${seconds} s`, at: Date.now() }),
        ];
      }
      return reported.map((callable) => describePreflight(callable, this.#results.get(callable)!));
    });
  }

  /** The callables `tool` reported for: itself, or each of its actions. */
  #reportedFor(tool: string): string[] {
    return [...this.#results.keys()].filter((k) => splitCallable(k).tool === tool);
  }

  #allReported(tools: readonly string[], timeoutMs: number): Promise<void> {
    const done = () => tools.every((t) => this.#reportedFor(t).length > 0);
    if (done()) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve();
      };
      const check = () => {
        if (done()) finish();
      };
      const timer = setTimeout(finish, timeoutMs);
      this.#waiters.add(check);
    });
  }
}
