import { waitAtMost } from '../../clock/index.js';
import type { BrainReady, ChildMessage } from './messages.js';

/** A ready message: the brain's or a worker's. */
export type ReadyMessage = Extract<ChildMessage, { type: 'brain_ready' | 'worker_ready' }>;

/**
 * The start of `caesar up`: waits until every child said it is ready, and fails at once when
 * one cannot start (it said so, or it sent a malformed message), rather than waiting out the
 * deadline or restarting it in a loop. Once {@link close}d, the stack is up: later failures
 * are for the caller to report.
 */
export class StartupGate {
  readonly #waiting: Set<string>;
  #brain: BrainReady | undefined;
  #open = true;
  readonly #ready: Promise<BrainReady>;
  #resolve: (brain: BrainReady) => void = () => undefined;
  #reject: (err: Error) => void = () => undefined;

  /** @param names every child that must say it is ready. */
  constructor(names: readonly string[]) {
    this.#waiting = new Set(names);
    this.#ready = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#ready.catch(() => undefined); // a failure after the deadline has no one to tell
  }

  /** True until {@link close}: a failure now stops the start. */
  get starting(): boolean {
    return this.#open;
  }

  /** `name` is ready; the brain's message says where the stack's API and files are. */
  ready(name: string, message: ReadyMessage): void {
    if (message.type === 'brain_ready') this.#brain = message;
    this.#waiting.delete(name);
    if (this.#waiting.size === 0 && this.#brain) this.#resolve(this.#brain);
  }

  /** A child cannot start: the start fails with `err` (once the stack is up, nothing). */
  fail(err: Error): void {
    if (this.#open) this.#reject(err);
  }

  /** The stack is up. */
  close(): void {
    this.#open = false;
  }

  /**
   * The brain's ready message, once every child is ready.
   * @throws {Error} the first failure, or after `timeoutMs` one that says so.
   */
  async wait(timeoutMs: number): Promise<BrainReady> {
    if (!(await waitAtMost(this.#ready, timeoutMs))) {
      const seconds = Math.round(timeoutMs / 1000);
      throw new Error(`the stack did not become ready within ${seconds} s`);
    }
    return await this.#ready;
  }
}
