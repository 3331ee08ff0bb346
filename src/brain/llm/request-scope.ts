/**
 * One model request's signal: the caller's signal and the endpoint's timeout together, and
 * which of the two fired. The timeout covers the whole request, a streamed answer included
 * (the SDKs' own `timeout` stops at the response headers). Dispose it when the request ends.
 */
export class RequestScope implements Disposable {
  readonly #controller = new AbortController();
  readonly #caller: AbortSignal;
  readonly #timer: NodeJS.Timeout;
  readonly #onAbort = () => this.#controller.abort(this.#caller.reason);
  #timedOut = false;

  constructor(caller: AbortSignal, timeoutMs: number) {
    this.#caller = caller;
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#controller.abort(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    if (caller.aborted) this.#onAbort();
    else caller.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Aborts when the caller's signal does or the timeout passes. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The caller aborted (this wins over a timeout that fired too). */
  get callerAborted(): boolean {
    return this.#caller.aborted;
  }

  get timedOut(): boolean {
    return this.#timedOut && !this.#caller.aborted;
  }

  [Symbol.dispose](): void {
    clearTimeout(this.#timer);
    this.#caller.removeEventListener('abort', this.#onAbort);
  }
}
