import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ChildSpec {
  /** Label used in status lines and as the log prefix. */
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
}

export interface SupervisorEvents {
  /** A child sent `{type: 'ready', ...}` over IPC. */
  onReady?: (name: string, message: Record<string, unknown>) => void;
  /** A child exited on its own and will be restarted after `delayMs`. */
  onRestart?: (name: string, code: number | null, signal: string | null, delayMs: number) => void;
  /**
   * A child could not start and says why (`{type: 'fatal', message}` over IPC) before it
   * exits: a config error, say, that a restart would only repeat.
   */
  onFatal?: (name: string, message: string) => void;
  /** One line a child wrote to stdout or stderr. */
  onOutput?: (name: string, line: string) => void;
}

/** When a crashed child starts again. */
export interface BackoffOptions {
  /** First restart delay; doubles per crash up to `maxBackoffMs`. @default 500 */
  backoffMs?: number;
  /** @default 30000 */
  maxBackoffMs?: number;
  /** A child that ran this long resets its backoff. @default 30000 */
  stableAfterMs?: number;
}

/**
 * The next restart of a child that crashed after running `ranMs`, having crashed `failures`
 * times in a row before: the new failure count and the delay. Shared by the supervisor
 * and the nats-server keeper, so every part of `caesar up` backs off alike.
 */
export function nextRestart(
  failures: number,
  ranMs: number,
  o: BackoffOptions,
): { failures: number; delayMs: number } {
  const n = ranMs >= (o.stableAfterMs ?? 30_000) ? 1 : failures + 1;
  const delayMs = Math.min((o.backoffMs ?? 500) * 2 ** (n - 1), o.maxBackoffMs ?? 30_000);
  return { failures: n, delayMs };
}

export interface SupervisorOptions extends SupervisorEvents, BackoffOptions {
  /** How long `stop()` waits before SIGKILL. @default 15000 */
  stopTimeoutMs?: number;
}

interface Slot {
  spec: ChildSpec;
  child?: ChildProcess;
  failures: number;
  startedAt: number;
  timer?: NodeJS.Timeout;
  exited?: Promise<void>;
}

/**
 * Runs child processes and restarts the ones that die, with exponential backoff. Each
 * child runs in its own process group (so a terminal's Ctrl-C reaches only the supervisor,
 * which then stops children in order) and holds an IPC channel: a child whose supervisor
 * dies, even by SIGKILL, sees `disconnect` and stops itself.
 */
export class Supervisor {
  readonly #slots: Slot[] = [];
  #stopping = false;

  constructor(private readonly options: SupervisorOptions = {}) {}

  start(spec: ChildSpec): void {
    const slot: Slot = { spec, failures: 0, startedAt: 0 };
    this.#slots.push(slot);
    this.#launch(slot);
  }

  pids(): Record<string, number | undefined> {
    return Object.fromEntries(this.#slots.map((s) => [s.spec.name, s.child?.pid]));
  }

  #launch(slot: Slot): void {
    const { spec } = slot;
    const child = spawn(spec.command, spec.args, {
      env: spec.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      detached: true,
    });
    slot.child = child;
    slot.startedAt = Date.now();
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream }).on('line', (line) =>
        this.options.onOutput?.(spec.name, line),
      );
    }
    child.on('message', (msg) => {
      if (!msg || typeof msg !== 'object') return;
      const type = (msg as { type?: unknown }).type;
      if (type === 'ready') this.options.onReady?.(spec.name, msg as Record<string, unknown>);
      else if (type === 'fatal') {
        const message = (msg as { message?: unknown }).message;
        this.options.onFatal?.(spec.name, typeof message === 'string' ? message : 'failed');
      }
    });
    slot.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        resolve();
        if (this.#stopping) return;
        const next = nextRestart(slot.failures, Date.now() - slot.startedAt, this.options);
        slot.failures = next.failures;
        this.options.onRestart?.(spec.name, code, signal, next.delayMs);
        slot.timer = setTimeout(() => this.#launch(slot), next.delayMs);
      });
    });
  }

  /** Stops every child: SIGTERM to its group, SIGKILL after the timeout. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await Promise.all(
      this.#slots.map(async (slot) => {
        clearTimeout(slot.timer);
        const child = slot.child;
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        signalGroup(child, 'SIGTERM');
        const kill = setTimeout(
          () => signalGroup(child, 'SIGKILL'),
          this.options.stopTimeoutMs ?? 15_000,
        );
        await slot.exited;
        clearTimeout(kill);
      }),
    );
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}
