import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { nextRestart, type BackoffOptions } from './backoff.js';
import { parseChildMessage, type ChildMessage } from './messages.js';

export interface ChildSpec {
  /** Label used in status lines and as the log prefix. */
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
}

export interface SupervisorEvents {
  /** A child sent a well-formed message (`ChildMessageSchema`) over IPC. */
  onMessage?: (name: string, message: ChildMessage) => void;
  /** A child sent a message that is not one; `problem` names the fields at fault. */
  onMalformed?: (name: string, problem: string) => void;
  /** A child exited on its own and will be restarted after `delayMs`. */
  onRestart?: (name: string, code: number | null, signal: string | null, delayMs: number) => void;
  /** One line a child wrote to stdout or stderr. */
  onOutput?: (name: string, line: string) => void;
}

interface SupervisorOptions extends SupervisorEvents, BackoffOptions {
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
 * dies, even by SIGKILL, sees `disconnect` and stops itself. Every message a child sends is
 * parsed with the one schema both sides use (`messages.ts`); a malformed one is refused.
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
    child.on('message', (raw) => this.#message(spec.name, raw));
    slot.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        resolve();
        if (!this.#stopping) this.#restart(slot, code, signal);
      });
    });
  }

  #restart(slot: Slot, code: number | null, signal: string | null): void {
    const next = nextRestart(slot.failures, Date.now() - slot.startedAt, this.options);
    slot.failures = next.failures;
    this.options.onRestart?.(slot.spec.name, code, signal, next.delayMs);
    slot.timer = setTimeout(() => this.#launch(slot), next.delayMs);
  }

  #message(name: string, raw: unknown): void {
    const parsed = parseChildMessage(raw);
    if (parsed.ok) this.options.onMessage?.(name, parsed.message);
    else this.options.onMalformed?.(name, parsed.problem);
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
