/**
 * What several users share and the last one closes: a tool definition's thread pool or
 * backend clients, shared by every instance a worker serves (tests serve one definition
 * against several fakes at once), or a tool's own start, shared by its actions (ADR 0092).
 * One value per key, usually the config section an instance was started with; one count of
 * users for all keys, so nothing closes while an instance still runs.
 *
 * `acquire` counts a user and opens the key's value unless it is open; the last `release`
 * closes every value, each close awaited and none stopping the others. An opening that
 * throws, or whose promise rejects, counts no user and leaves nothing behind, so the next
 * `acquire` opens it anew.
 */
export class RefCounted<K, T> {
  readonly #values = new Map<K, T>();
  readonly #close: (value: Awaited<T>) => unknown;
  #users = 0;

  /** @param close closes one opened value, when the last user releases */
  constructor(close: (value: Awaited<T>) => unknown) {
    this.#close = close;
  }

  /**
   * One more user of `key`'s value, opened by `open` unless it is open. A promise is stored
   * as it is: users of a value still opening share its promise.
   */
  acquire(key: K, open: () => T): T {
    const value = this.#values.has(key) ? (this.#values.get(key) as T) : open();
    this.#values.set(key, value);
    this.#users += 1;
    if (isThenable(value)) {
      // registered before the caller's await: forgotten by the time the caller hears of it
      value.then(undefined, () => {
        this.#users = Math.max(0, this.#users - 1);
        if (this.#values.get(key) === value) this.#values.delete(key);
      });
    }
    return value;
  }

  /** `key`'s open value; undefined before its first acquire or after the last release. */
  peek(key: K): T | undefined {
    return this.#values.get(key);
  }

  /** Users now. */
  get users(): number {
    return this.#users;
  }

  /** One user fewer; the last closes every open value. */
  async release(): Promise<void> {
    this.#users = Math.max(0, this.#users - 1);
    if (this.#users > 0) return;
    const open = [...this.#values.values()];
    this.#values.clear();
    await Promise.allSettled(open.map(async (v) => this.#close(await v)));
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
