import { abortReason } from './abort.js';

/**
 * A concurrency cap with a bounded FIFO queue. `acquire` answers at once: `true` (run
 * now), `false` (cap and queue full: overloaded), or a promise that resolves when a slot
 * frees up and rejects with the signal's reason if the caller gives up while waiting.
 */
export class Limiter {
  #active = 0;
  readonly #queue: Array<{
    resolve: () => void;
    reject: (r: Error) => void;
    signal: AbortSignal;
    onAbort: () => void;
  }> = [];

  constructor(
    readonly maxConcurrency: number,
    readonly maxQueue: number,
  ) {}

  get active(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#queue.length;
  }

  acquire(signal: AbortSignal): boolean | Promise<void> {
    if (this.#active < this.maxConcurrency) {
      this.#active++;
      return true;
    }
    if (this.#queue.length >= this.maxQueue) return false;
    return new Promise<void>((resolve, reject) => {
      const entry = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const i = this.#queue.indexOf(entry);
          if (i >= 0) this.#queue.splice(i, 1);
          reject(abortReason(signal));
        },
      };
      signal.addEventListener('abort', entry.onAbort, { once: true });
      this.#queue.push(entry);
    });
  }

  /** Frees a slot: hands it to the next waiter, or lowers the active count. */
  release(): void {
    const next = this.#queue.shift();
    if (next) {
      next.signal.removeEventListener('abort', next.onAbort);
      next.resolve();
    } else {
      this.#active--;
    }
  }
}
