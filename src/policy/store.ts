import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { watchFileChanges, type FileChangeWatch } from '../files/index.js';
import { silentLogger, type Logger } from '../log/index.js';
import { compilePolicySliced } from './compile.js';
import type { CompiledPolicy } from './compiled.js';
import type { PolicyDecision, PolicyExplanation } from './decision.js';
import { PolicyEngine, type Policy } from './engine.js';
import {
  PolicyClosedError,
  PolicyError,
  PolicyLoadError,
  PolicyNotConfiguredError,
} from './errors.js';
import type { EvaluateContext } from './evaluate.js';
import type {
  PolicyEvent,
  PolicyEventMap,
  PolicyReloadFailedEvent,
  PolicyReloadedEvent,
  ReloadTrigger,
} from './events.js';
import {
  DEFAULT_POLICY_MAX_BYTES,
  hashPolicyFile,
  loadPolicyFile,
  readPolicyText,
} from './load.js';
import { policyState, reloadErrorOf, type PolicyReloadError, type PolicyStatus } from './status.js';
import type { ToolCall } from './tool-call.js';
import { NO_POLICY_FILE, unconfiguredPolicy } from './unconfigured.js';
import { roundMs } from '../clock/index.js';

interface PolicyStoreOptions {
  /**
   * The policy file (the config's `policy.file`). Absent, null or empty: no policy is
   * configured and every call is denied with a reason that says how to configure one.
   */
  path?: string | null | undefined;
  /** The config's `policy.max_file_bytes`: a larger file is refused. @default 524288 */
  maxFileBytes?: number;
  /** Watch the file (src/files/file-watch.ts) and reload when it changes. @default true */
  watch?: boolean;
  /** Quiet period after the file's last change before a watched reload runs. @default 50 */
  debounceMs?: number;
  /**
   * The longest a watched change waits for that quiet, however often the file keeps
   * changing. Writes beside the file (the audit log in the data directory) are not changes
   * of it and never delay a reload. @default 150
   */
  maxWaitMs?: number;
  /**
   * A watched change is applied only if the file reads the same again after this long, so a
   * file being written in place (truncate, then write) is not loaded half-written.
   * @default debounceMs
   */
  settleMs?: number;
  /** Clock for rate limits, in epoch ms. @default Date.now */
  now?: () => number;
  /** Signal that makes the store re-read the file; null installs no handler. @default 'SIGHUP' */
  reloadSignal?: NodeJS.Signals | null;
  /** @default silentLogger() */
  logger?: Logger;
  /** Called with every reload event, before the EventEmitter listeners. */
  onEvent?: (event: PolicyEvent) => void;
}

/**
 * The live policy of a process: evaluates calls, reloads the file when it changes (the one
 * file watch of src/host: saved in place, renamed over, or swapped through symlinks), on
 * SIGHUP, or when `reload()` is called, and swaps the compiled policy atomically. A bad edit keeps the last good policy and
 * emits `policy.reload_failed` saying why; a good one emits `policy.reloaded`.
 */
export class PolicyStore extends EventEmitter<PolicyEventMap> implements Policy, Disposable {
  /** The policy file, or null when none is configured. */
  readonly path: string | null;
  private readonly engine: PolicyEngine;
  private readonly logger: Logger;
  private readonly debounceMs: number;
  private readonly maxWaitMs: number;
  private readonly settleMs: number;
  private readonly maxBytes: number;
  private readonly onEvent: ((event: PolicyEvent) => void) | undefined;
  private watcher: FileChangeWatch | null = null;
  private signal: { name: NodeJS.Signals; handler: () => void } | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** The sha the last refused reload read (null: it could not read the file). */
  private lastFailedSha: string | null = null;
  /** Why the last reload was refused; null once one succeeds. */
  private lastError: PolicyReloadError | null = null;
  /** A file on disk no reload has seen yet, compiled once by `status()`: does it load? */
  private probed: { sha: string; error: PolicyReloadError | null } | null = null;
  /** When the enforced policy was loaded. */
  private loadedAt = new Date();
  private closed = false;

  /**
   * Loads the file (throws PolicyReadError / PolicyLoadError) and starts watching it. Without a
   * path, the store denies every call (see NOT_CONFIGURED_REASON) and watches nothing.
   */
  static async open(options: PolicyStoreOptions): Promise<PolicyStore> {
    const path = options.path === '' ? null : (options.path ?? null);
    const read = { maxBytes: options.maxFileBytes ?? DEFAULT_POLICY_MAX_BYTES };
    const policy = path === null ? unconfiguredPolicy() : await loadPolicyFile(path, read);
    const store = new PolicyStore(options, path, policy);
    if (path === null) {
      store.lastError = reloadErrorOf(NO_POLICY_FILE, new PolicyNotConfiguredError(), new Date());
    }
    for (const w of policy.warnings) {
      store.logger.warn({ file: policy.file, ...w }, `policy: ${w.message}`);
    }
    if (path === null) return store;
    if (options.watch ?? true) store.startWatching(path);
    const signal = options.reloadSignal === undefined ? 'SIGHUP' : options.reloadSignal;
    if (signal !== null) store.listenFor(signal);
    return store;
  }

  private constructor(options: PolicyStoreOptions, path: string | null, policy: CompiledPolicy) {
    super();
    this.path = path;
    this.engine = new PolicyEngine(policy, options.now ? { now: options.now } : {});
    this.logger = options.logger ?? silentLogger();
    this.debounceMs = options.debounceMs ?? 50;
    this.maxWaitMs = options.maxWaitMs ?? 150;
    this.settleMs = options.settleMs ?? this.debounceMs;
    this.maxBytes = options.maxFileBytes ?? DEFAULT_POLICY_MAX_BYTES;
    this.onEvent = options.onEvent;
  }

  /** The live compiled policy. */
  get policy(): CompiledPolicy {
    return this.engine.policy;
  }

  /** See PolicyEngine.evaluate. */
  evaluate(call: ToolCall, ctx?: EvaluateContext): PolicyDecision {
    return this.engine.evaluate(call, ctx);
  }

  /** See PolicyEngine.explain. */
  explain(call: ToolCall, ctx?: EvaluateContext): PolicyExplanation {
    return this.engine.explain(call, ctx);
  }

  /**
   * The enforced policy, whether the file on disk still holds its bytes (read and hashed now,
   * within `maxFileBytes`), and why the last reload was refused. A file that differs is
   * `broken` when it cannot be read or loaded (a reload refused it, or, before any reload ran,
   * a compile of it here fails; once per content), else `stale`.
   */
  async status(): Promise<PolicyStatus> {
    const policy = this.engine.policy;
    const enforced = {
      path: policy.file,
      sha256: policy.sha256,
      loaded_at: this.loadedAt.toISOString(),
      rules: policy.rules.length,
    };
    let diskSha: string | null = null;
    let readError: PolicyReloadError | null = null;
    if (this.path !== null) {
      try {
        diskSha = await hashPolicyFile(this.path, { maxBytes: this.maxBytes });
      } catch (err) {
        // not reloaded yet (no watcher event so far): the read says why all the same
        readError = reloadErrorOf(this.path, err, new Date());
      }
    }
    // read after the await: a reload may have been refused meanwhile, and the state below
    // is judged against it, so the error shown must be that one too
    let lastError = this.lastError ?? readError;
    const refused = this.lastError === null ? undefined : { sha: this.lastFailedSha };
    let state = this.path === null ? 'broken' : policyState(diskSha, policy.sha256, refused);
    if (state === 'stale' && this.path !== null) {
      // changed and not reloaded yet: stale if it loads, broken (saying where) if it does not
      const error = await this.probe(this.path);
      if (error !== null) [state, lastError] = ['broken', error];
    }
    return {
      status: state,
      enforced,
      disk: { sha256: diskSha, matches_enforced: diskSha === policy.sha256 },
      last_reload_error: lastError,
    };
  }

  /**
   * Null when the file on disk loads, else why not; compiled (sliced) once per content, so
   * repeated probes of a file the watcher never reloads cost one read and one hash each.
   */
  private async probe(path: string): Promise<PolicyReloadError | null> {
    let read;
    try {
      read = await readPolicyText(path, { maxBytes: this.maxBytes });
    } catch (err) {
      return reloadErrorOf(path, err, new Date());
    }
    if (this.probed?.sha === read.sha256) return this.probed.error;
    let error: PolicyReloadError | null = null;
    try {
      await compilePolicySliced(read.text, { file: path, sha256: read.sha256 });
    } catch (err) {
      error = reloadErrorOf(path, err, new Date());
    }
    this.probed = { sha: read.sha256, error };
    return error;
  }

  /**
   * Re-reads the file now. Resolves with the event it emitted; never rejects for a bad file,
   * only when the store is closed.
   */
  async reload(): Promise<PolicyEvent> {
    return this.reloadNow('manual');
  }

  /** Stops watching and listening for the signal. Idempotent; evaluation keeps working. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.signal) process.off(this.signal.name, this.signal.handler);
      this.signal = null;
    } finally {
      this.watcher?.close();
      this.watcher = null;
    }
  }

  [Symbol.dispose](): void {
    this.close();
  }

  private async reloadNow(trigger: ReloadTrigger): Promise<PolicyEvent> {
    const name = this.path ?? NO_POLICY_FILE;
    if (this.closed) throw new PolicyClosedError(name);
    const event = await this.enqueue(trigger);
    if (event === null) throw new PolicyClosedError(name);
    return event;
  }

  private listenFor(name: NodeJS.Signals): void {
    const handler = () => {
      this.reloadNow('signal').catch((err: unknown) =>
        this.logger.error({ err }, 'policy reload on signal failed'),
      );
    };
    process.on(name, handler);
    this.signal = { name, handler };
  }

  private startWatching(path: string): void {
    const reload = () => {
      this.enqueue('watch').catch((err: unknown) =>
        this.logger.error({ err }, 'policy reload crashed'),
      );
    };
    this.watcher = watchFileChanges(path, reload, {
      debounceMs: this.debounceMs,
      maxWaitMs: this.maxWaitMs,
      onError: (err) =>
        this.logger.warn(
          { err, path },
          'policy watcher failed; changes now need an explicit reload',
        ),
    });
  }

  /** Reloads run one at a time, in order. */
  private enqueue(trigger: ReloadTrigger): Promise<PolicyEvent | null> {
    const next = this.queue.then(() => this.reloadOnce(trigger));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async reloadOnce(trigger: ReloadTrigger): Promise<PolicyEvent | null> {
    if (this.closed && trigger === 'watch') return null;
    const started = performance.now();
    const previous = this.engine.policy;
    const path = this.path;
    if (path === null) {
      return this.publish(
        failed(NO_POLICY_FILE, previous, new PolicyNotConfiguredError(), trigger),
      );
    }
    let sha: string | null = null;
    try {
      const { text, sha256 } = await readPolicyText(path, { maxBytes: this.maxBytes });
      sha = sha256;
      if (trigger === 'watch') {
        if (sha256 === this.lastFailedSha && this.lastError !== null) return null;
        // the enforced bytes again after a refused edit: reloaded, so the error is cleared
        if (sha256 === previous.sha256 && this.lastError === null) return null;
        if (!(await this.settled(path, sha256))) return null;
      }
      // sliced: requests keep being answered while a large file compiles
      const policy = await compilePolicySliced(text, { file: path, sha256 });
      if (this.closed && trigger === 'watch') return null;
      this.engine.swap(policy);
      this.loadedAt = new Date();
      this.lastFailedSha = null;
      this.lastError = null;
      const duration = performance.now() - started;
      return this.publish(reloaded(path, previous, policy, duration, trigger));
    } catch (err) {
      this.lastFailedSha = sha;
      this.lastError = reloadErrorOf(path, err, new Date());
      return this.publish(failed(path, previous, err, trigger, this.lastError));
    }
  }

  /**
   * True when the file still hashes to `sha256` after the settle period. A save in place can
   * be read between its writes: a prefix of a policy may parse, and may allow more than the
   * whole file (an allow rule whose constraints are on the lines not yet written). If the
   * bytes moved, the next quiet period reloads them instead.
   */
  private async settled(path: string, sha256: string): Promise<boolean> {
    await new Promise((resolve) => setTimeout(resolve, this.settleMs));
    if (this.closed) return false;
    const again = await readPolicyText(path, { maxBytes: this.maxBytes });
    if (again.sha256 === sha256) return true;
    this.watcher?.poke();
    return false;
  }

  private publish(event: PolicyEvent): PolicyEvent {
    if (event.type === 'policy.reloaded') {
      const { warnings, ...rest } = event;
      this.logger.info({ ...rest, warnings: warnings.length }, 'policy reloaded');
    } else {
      // `first` repeats the head of `error`, which the log line already carries
      const { issues, first: _first, ...rest } = event;
      this.logger.warn(
        { ...rest, issues: issues.length },
        'policy reload failed; keeping the last good policy',
      );
    }
    try {
      this.onEvent?.(event);
      if (event.type === 'policy.reloaded') this.emit(event.type, event);
      else this.emit(event.type, event);
    } catch (err) {
      this.logger.error({ err, event: event.type }, 'policy event listener threw');
    }
    return event;
  }
}

/** Opens a PolicyStore (see PolicyStore.open). */
export function openPolicyStore(options: PolicyStoreOptions): Promise<PolicyStore> {
  return PolicyStore.open(options);
}

function reloaded(
  file: string,
  previous: CompiledPolicy,
  policy: CompiledPolicy,
  durationMs: number,
  trigger: ReloadTrigger,
): PolicyReloadedEvent {
  return {
    type: 'policy.reloaded',
    path: file,
    policy_sha256: policy.sha256,
    previous_sha256: previous.sha256,
    rules: policy.rules.length,
    changed: policy.sha256 !== previous.sha256,
    warnings: policy.warnings,
    duration_ms: roundMs(durationMs),
    trigger,
  };
}

function failed(
  file: string,
  previous: CompiledPolicy,
  err: unknown,
  trigger: ReloadTrigger,
  error: PolicyReloadError = reloadErrorOf(file, err, new Date()),
): PolicyReloadFailedEvent {
  return {
    type: 'policy.reload_failed',
    path: file,
    kept_sha256: previous.sha256,
    error: err instanceof Error ? err.message : String(err),
    code: err instanceof PolicyError ? err.code : 'internal',
    issues: err instanceof PolicyLoadError ? err.issues : [],
    first: error,
    trigger,
  };
}
