import type { SupervisorMessage } from './messages.js';

/** The most messages kept while the brain is down; the oldest go first. */
const MAX_QUEUED = 1000;

/**
 * What `caesar up` has to tell the brain (ADR 0070): each restart of a part, for its audit
 * log. Kept while the brain cannot take them (before it is ready, while it restarts: its own
 * restart reaches the brain that follows it) and sent in order once it can.
 */
export class BrainMailbox {
  readonly #queue: SupervisorMessage[] = [];
  #open = false;

  /** @param send hands a message to the brain; false when it cannot take it now. */
  constructor(private readonly send: (message: SupervisorMessage) => boolean) {}

  post(message: SupervisorMessage): void {
    this.#queue.push(message);
    if (this.#queue.length > MAX_QUEUED) this.#queue.shift();
    this.#flush();
  }

  /** The brain is ready: send what waits. */
  open(): void {
    this.#open = true;
    this.#flush();
  }

  /** The brain is gone: keep messages until the next one is ready. */
  close(): void {
    this.#open = false;
  }

  #flush(): void {
    while (this.#open && this.#queue.length > 0) {
      if (!this.send(this.#queue[0]!)) {
        this.#open = false;
        return;
      }
      this.#queue.shift();
    }
  }
}
