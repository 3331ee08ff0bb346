import { watchFileChanges, type FileChangeWatch } from '../../files/index.js';
import { silentLogger, type Logger } from '../../log/index.js';
import { parseIntents } from './compile.js';
import type { IntentCapability, IntentSet, MatchContext } from './intent-set.js';
import { readIntentsText } from './load.js';

/** What a reload did: the new rules are live, or the file was refused and the old ones kept. */
export type IntentsReloadEvent =
  | { type: 'intents.reloaded'; file: string; rules: number }
  | { type: 'intents.reload_failed'; file: string; error: string };

interface IntentStoreOptions {
  /** The config's `brain.intents_file`. */
  file: string;
  /** Watch the file (src/files/file-watch.ts) and reload when it changes. @default true */
  watch?: boolean;
  /** Quiet period after the file's last change before a reload. @default 50 */
  debounceMs?: number;
  /** The longest a change waits for that quiet, however often the file changes. @default 150 */
  maxWaitMs?: number;
  /** @default silentLogger() */
  logger?: Logger;
  /** Called with every reload's outcome. */
  onEvent?: (event: IntentsReloadEvent) => void;
}

/**
 * The live intent rules of the brain: the file compiled at start, then again each time it is
 * saved, as the policy is (the one file watch of src/host: saved in place, renamed over or
 * swapped through symlinks; the text read twice, so a file saved in place is not compiled
 * half written). A file that does not compile keeps the last good rules, and a warn line gives
 * each problem as `file:line:column: path: message`. Matching is never paused: a reload swaps
 * the compiled set in one assignment.
 */
export class IntentStore {
  readonly file: string;
  #set: IntentSet;
  #text: string;
  readonly #o: IntentStoreOptions;
  readonly #logger: Logger;
  #watcher: FileChangeWatch | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  /** Compiles the file (throws IntentsError as loadIntents does) and starts watching it. */
  static async open(options: IntentStoreOptions): Promise<IntentStore> {
    const text = await readIntentsText(options.file);
    const store = new IntentStore(options, parseIntents(text, options.file), text);
    if (options.watch ?? true) store.#startWatching();
    return store;
  }

  private constructor(options: IntentStoreOptions, set: IntentSet, text: string) {
    this.file = options.file;
    this.#o = options;
    this.#set = set;
    this.#text = text;
    this.#logger = options.logger ?? silentLogger();
  }

  /** The live compiled rules. */
  get intents(): IntentSet {
    return this.#set;
  }

  /** See IntentSet.match. */
  match(message: string, ctx: MatchContext): ReturnType<IntentSet['match']> {
    return this.#set.match(message, ctx);
  }

  /** See IntentSet.capabilities: the live rules', so a saved rule is advertised at once. */
  capabilities(): IntentCapability[] {
    return this.#set.capabilities();
  }

  /** Re-reads the file now; resolves with what happened, never rejects for a bad file. */
  reload(): Promise<IntentsReloadEvent | undefined> {
    const next = this.#queue.then(() => this.#reloadOnce(false));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /** Stops watching. Idempotent; matching keeps working with the last rules. */
  close(): void {
    this.#closed = true;
    this.#watcher?.close();
    this.#watcher = undefined;
  }

  #startWatching(): void {
    const reload = () => {
      const next = this.#queue.then(() => this.#reloadOnce(true));
      this.#queue = next.catch((err: unknown) =>
        this.#logger.error({ err }, 'intents reload crashed'),
      );
    };
    this.#watcher = watchFileChanges(this.file, reload, {
      debounceMs: this.#o.debounceMs ?? 50,
      maxWaitMs: this.#o.maxWaitMs ?? 150,
      onError: (err) =>
        this.#logger.warn(
          { err, file: this.file },
          'intents watcher failed; changes now need a restart',
        ),
    });
  }

  async #reloadOnce(watched: boolean): Promise<IntentsReloadEvent | undefined> {
    if (this.#closed && watched) return undefined;
    let text: string;
    try {
      text = await readIntentsText(this.file);
      if (watched) {
        if (text === this.#text) return undefined;
        // saved in place? read it again after the quiet period; still moving: later
        await new Promise((resolve) => setTimeout(resolve, this.#o.debounceMs ?? 50));
        if ((await readIntentsText(this.file)) !== text) {
          this.#watcher?.poke();
          return undefined;
        }
      }
      const set = parseIntents(text, this.file);
      this.#set = set;
      this.#text = text;
      this.#logger.info({ file: this.file, rules: set.intents.length }, 'intents reloaded');
      return this.#publish({
        type: 'intents.reloaded',
        file: this.file,
        rules: set.intents.length,
      });
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      this.#logger.warn(
        { file: this.file },
        `intents reload failed; keeping the last good rules: ${error}`,
      );
      return this.#publish({ type: 'intents.reload_failed', file: this.file, error });
    }
  }

  #publish(event: IntentsReloadEvent): IntentsReloadEvent {
    try {
      this.#o.onEvent?.(event);
    } catch (err) {
      this.#logger.error({ err }, 'intents event listener threw');
    }
    return event;
  }
}
