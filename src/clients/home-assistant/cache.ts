import { TimeoutError } from '../../legion/index.js';

interface TtlCacheOptions {
  /** How long a value is served before the next `get` loads a fresh one. */
  ttlMs: number;
  /** How long a failed load is remembered (answered at once) before trying again. @default 0 */
  failureTtlMs?: number;
  /** @default Date.now */
  now?: () => number;
}

type Entry<T> =
  { kind: 'value'; value: T; at: number } | { kind: 'failure'; error: Error; at: number };

/**
 * One cached value with a time to live, loaded by one load at a time: callers that arrive
 * while a load runs share it. A load is never tied to one caller's signal (so one caller's
 * deadline cannot fail the others); each caller stops waiting when its own signal fires.
 */
export class TtlCache<T> {
  readonly #load: () => Promise<T>;
  readonly #ttlMs: number;
  readonly #failureTtlMs: number;
  readonly #now: () => number;
  #entry: Entry<T> | undefined;
  #loading: Promise<T> | undefined;

  constructor(load: () => Promise<T>, options: TtlCacheOptions) {
    this.#load = load;
    this.#ttlMs = options.ttlMs;
    this.#failureTtlMs = options.failureTtlMs ?? 0;
    this.#now = options.now ?? Date.now;
  }

  /** When the value in hand was loaded (epoch ms), if there is one. */
  get loadedAt(): number | undefined {
    return this.#entry?.kind === 'value' ? this.#entry.at : undefined;
  }

  /** The fresh value, or a new load's. */
  async get(signal?: AbortSignal): Promise<T> {
    const e = this.#entry;
    const age = e === undefined ? Infinity : this.#now() - e.at;
    if (e?.kind === 'value' && age < this.#ttlMs) return e.value;
    if (e?.kind === 'failure' && age < this.#failureTtlMs) throw e.error;
    return untilAborted(this.#start(), signal);
  }

  /** A new load even when the value in hand is fresh (unless one is already running). */
  refresh(signal?: AbortSignal): Promise<T> {
    return untilAborted(this.#start(), signal);
  }

  /** Forgets the value in hand. */
  clear(): void {
    this.#entry = undefined;
  }

  #start(): Promise<T> {
    if (this.#loading) return this.#loading;
    const loading = this.#load().then(
      (value) => {
        this.#entry = { kind: 'value', value, at: this.#now() };
        return value;
      },
      (err: unknown) => {
        const error = err instanceof Error ? err : new Error(String(err));
        this.#entry = { kind: 'failure', error, at: this.#now() };
        throw error;
      },
    );
    this.#loading = loading;
    const done = () => {
      if (this.#loading === loading) this.#loading = undefined;
    };
    loading.then(done, done);
    return loading;
  }
}

/** `promise`, or the signal's reason as soon as it fires. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(reasonOf(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reasonOf(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

function reasonOf(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new TimeoutError('the call was aborted');
}
