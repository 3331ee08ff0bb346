import { readlinkSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { performance } from 'node:perf_hooks';

/**
 * Watching one file for changes, for the stores that reload what an operator saves (the
 * policy, the intent rules). ADR 0062.
 *
 * The file's directory is watched, not the file: editors save by writing a temporary file
 * and renaming it over, which replaces the inode a file watch would follow. Events are
 * filtered by name, so writes beside the file (the audit log in the same data directory)
 * are not changes of it, and batched: `onChange` runs after `debounceMs` without another
 * event for the file, and never later than `maxWaitMs` after the first one.
 */
export interface FileChangeOptions {
  /** Quiet period after the last event for the file before `onChange` runs. @default 50 */
  debounceMs?: number;
  /** The longest a change waits for that quiet, however many events follow. @default 150 */
  maxWaitMs?: number;
  /** Called once when the watch fails; it has stopped, so changes need another way in. */
  onError?: (err: Error) => void;
}

/** A running watch. `close()` (or `using`) stops it; `onChange` never runs after it. */
export interface FileChangeWatch extends Disposable {
  /** Runs `onChange` as if the file had changed (batched like an event). */
  poke(): void;
  close(): void;
}

/** Symlinks followed from the file to the names that can change it, at most. */
const MAX_LINKS = 8;

/**
 * Watches `file` and calls `onChange` when it may have changed: written in place, replaced by
 * a rename, or re-pointed through symlinks in its directory (a Kubernetes ConfigMap mounts
 * `file -> ..data/file` and swaps `..data` by rename; the file's own name never changes).
 */
export function watchFileChanges(
  file: string,
  onChange: () => void,
  options: FileChangeOptions = {},
): FileChangeWatch {
  const dir = dirname(file);
  let names = namesThatChange(file);
  const batch = new ChangeBatch({
    debounceMs: options.debounceMs ?? 50,
    maxWaitMs: options.maxWaitMs ?? 150,
    run: () => {
      // the links may point elsewhere now (a new ConfigMap version): follow them again
      names = namesThatChange(file);
      onChange();
    },
  });
  let watcher: FSWatcher | null = watch(dir, { persistent: false }, (_event, name) => {
    // no name (some platforms): it could be the file
    if (name === null || names.has(name)) batch.change();
  });
  const close = () => {
    batch.close();
    watcher?.close();
    watcher = null;
  };
  watcher.on('error', (err) => {
    close();
    options.onError?.(err);
  });
  return { poke: () => batch.change(), close, [Symbol.dispose]: close };
}

/**
 * The names in `file`'s directory whose change can change what reading `file` returns: its
 * own, and, when it is a symlink, the first step of each link it goes through while they stay
 * in that directory (`policy.yaml -> ..data/policy.yaml`, `..data -> ..2026_12_04_...`:
 * `policy.yaml`, `..data`, `..2026_12_04_...`). Links out of the directory are not followed:
 * a change there is not seen until the file's own name changes.
 */
export function namesThatChange(file: string): Set<string> {
  const dir = dirname(file);
  const names = new Set([basename(file)]);
  let path = file;
  for (let hop = 0; hop < MAX_LINKS; hop++) {
    let target: string;
    try {
      target = readlinkSync(path);
    } catch {
      break; // not a symlink (or gone): nothing more to follow
    }
    const inDir = relative(dir, isAbsolute(target) ? target : join(dirname(path), target));
    const first = inDir.split(sep)[0] ?? '';
    if (first === '' || first === '..' || isAbsolute(inDir)) break;
    names.add(first);
    path = join(dir, first);
  }
  return names;
}

/** How a batch of changes is timed (see watchFileChanges). */
interface ChangeBatchOptions {
  readonly debounceMs: number;
  readonly maxWaitMs: number;
  readonly run: () => void;
  /** Clock in ms, for tests. @default performance.now */
  readonly now?: () => number;
}

/**
 * Changes, batched: `run` after `debounceMs` with no further `change()`, and at the latest
 * `maxWaitMs` after the batch's first change, so a stream of changes cannot hold it back.
 * After `close()`, `run` is never called.
 */
export class ChangeBatch {
  readonly #o: ChangeBatchOptions;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | null = null;
  /** performance.now() of the batch's first change; null while no batch is open. */
  #first: number | null = null;
  #closed = false;

  constructor(options: ChangeBatchOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => performance.now());
  }

  change(): void {
    if (this.#closed) return;
    const now = this.#now();
    this.#first ??= now;
    if (this.#timer !== null) clearTimeout(this.#timer);
    const left = this.#first + this.#o.maxWaitMs - now;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, Math.min(this.#o.debounceMs, left)));
    this.#timer.unref();
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #fire(): void {
    this.#timer = null;
    this.#first = null;
    if (!this.#closed) this.#o.run();
  }
}
