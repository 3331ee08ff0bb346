import { createInterface } from 'node:readline';
import {
  descendantsOf,
  heartbeatIntervalMs,
  isAlive,
  killTree,
  signalEach,
  signalGroup,
  spawnChild,
  type Child,
  type ChildExit,
  type ChildProcess,
} from '../../process/index.js';
import { nextRestart, secondsText, type BackoffOptions } from '../../clock/index.js';
import { parseChildMessage, type ChildMessage, type RestartReason } from './messages.js';

export interface ChildSpec {
  /** Label used in status lines and as the log prefix. */
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** Arguments added when the child is started again, saying why (a worker's registry entry). */
  restartArgs?: (restart: RestartInfo) => string[];
  /** The V8 heap ceiling it runs with, MB: names the ceiling when it is reached. */
  heapLimitMb?: number;
}

/** Why and how a child was restarted. */
export interface RestartInfo {
  readonly reason: RestartReason;
  /** One line for a human: `no heartbeat for 10.0 s`, `V8 heap limit (256 MB) reached`. */
  readonly detail: string;
  /** Restarts of this child since the supervisor started, this one included. */
  readonly count: number;
  readonly pid: number | undefined;
  readonly exit: { readonly code: number | null; readonly signal: string | null };
  /** When the old process ended. */
  readonly at: Date;
  readonly delayMs: number;
}

export interface SupervisorEvents {
  /** A child sent a well-formed message (`ChildMessageSchema`) over IPC; heartbeats are not passed on. */
  onMessage?: (name: string, message: ChildMessage) => void;
  /** A child sent a message that is not one; `problem` names the fields at fault. */
  onMalformed?: (name: string, problem: string) => void;
  /** A child ended without being asked to and starts again after `restart.delayMs`. */
  onRestart?: (name: string, restart: RestartInfo) => void;
  /** The supervisor is killing a child (SIGKILL): it stopped answering, or did not stop in time. */
  onKill?: (name: string, pid: number, why: string) => void;
  /** One line a child wrote to stdout or stderr. */
  onOutput?: (name: string, line: string) => void;
}

interface SupervisorOptions extends SupervisorEvents, BackoffOptions {
  /**
   * A child that sends no heartbeat (any IPC message) for this long is killed with SIGKILL
   * and restarted; 0 watches none. @default 10000
   */
  heartbeatTimeoutMs?: number;
  /** How long a child started has to send its first heartbeat. @default max(heartbeatTimeoutMs, 30000) */
  firstBeatMs?: number;
  /** On stop, how long after SIGTERM a child is killed with SIGKILL. @default 5000 */
  stopGraceMs?: number;
}

interface Slot {
  spec: ChildSpec;
  child?: ChildProcess;
  failures: number;
  restarts: number;
  startedAt: number;
  /** When the child last said anything; undefined until its first word. */
  lastBeat?: number;
  /** Why the supervisor ended the running child, when it did. */
  ended?: { reason: RestartReason; detail: string };
  timer?: NodeJS.Timeout;
  exited?: Promise<void>;
}

/** What V8 prints when a heap reaches its limit, just before it aborts the process. */
const HEAP_LIMIT_LINE = /JavaScript heap out of memory|Reached heap limit/;

/**
 * Runs child processes and restarts the ones that die, with exponential backoff (ADR 0039,
 * ADR 0070). Each child runs in its own process group (so a terminal's Ctrl-C reaches only
 * the supervisor, which then stops children in order) and holds an IPC channel over which it
 * sends a heartbeat: one that stays silent past the timeout is stuck (its event loop blocked)
 * and is killed with SIGKILL, since the signal handlers a stuck loop would run never run,
 * then restarted. A child whose supervisor dies, even by SIGKILL, sees `disconnect` and stops
 * itself. Every message a child sends is parsed with the one schema both sides use
 * (`messages.ts`); a malformed one is refused.
 */
export class Supervisor {
  readonly #slots: Slot[] = [];
  readonly #o: SupervisorOptions;
  readonly #watch: NodeJS.Timeout | undefined;
  #stopping = false;

  constructor(options: SupervisorOptions = {}) {
    this.#o = options;
    const timeoutMs = options.heartbeatTimeoutMs ?? 10_000;
    if (timeoutMs > 0) {
      this.#watch = setInterval(() => this.#check(timeoutMs), heartbeatIntervalMs(timeoutMs));
      this.#watch.unref();
    }
  }

  start(spec: ChildSpec): void {
    const slot: Slot = { spec, failures: 0, restarts: 0, startedAt: 0 };
    this.#slots.push(slot);
    this.#launch(slot, undefined);
  }

  pids(): Record<string, number | undefined> {
    return Object.fromEntries(this.#slots.map((s) => [s.spec.name, s.child?.pid]));
  }

  /** Sends `message` to the named child over its IPC channel; false when it cannot take it now. */
  send(name: string, message: object): boolean {
    const child = this.#slots.find((s) => s.spec.name === name)?.child;
    if (child === undefined || !child.connected || !running(child)) return false;
    child.send(message);
    return true;
  }

  #launch(slot: Slot, restart: RestartInfo | undefined): void {
    const { spec } = slot;
    const args =
      restart && spec.restartArgs ? [...spec.args, ...spec.restartArgs(restart)] : spec.args;
    slot.startedAt = Date.now();
    delete slot.lastBeat;
    delete slot.ended;
    let started: Child;
    try {
      started = spawnChild(spec.command, args, {
        env: spec.env ?? process.env,
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        group: true,
      });
    } catch (err) {
      // refused before it ran (an argument Node will not pass): retried like a crash
      delete slot.child;
      const spawnError = err instanceof Error ? err : new Error(String(err));
      slot.exited = Promise.resolve();
      this.#ended(slot, undefined, { code: null, signal: null, spawnError });
      return;
    }
    const { child, exited } = started;
    slot.child = child;
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream }).on('line', (line) => this.#output(slot, line));
    }
    child.on('message', (raw) => this.#message(slot, raw));
    slot.exited = exited.then((exit) => this.#ended(slot, child, exit));
  }

  /** A child ended (or never started): what it left behind in its group goes, then it restarts. */
  #ended(slot: Slot, child: ChildProcess | undefined, exit: ChildExit): void {
    if (this.#stopping) return;
    signalGroup(child?.pid, 'SIGKILL');
    if (exit.spawnError !== undefined) {
      slot.ended = { reason: 'exited', detail: cannotStart(slot.spec, exit.spawnError) };
    }
    this.#restart(slot, child, { code: exit.code, signal: exit.signal });
  }

  #output(slot: Slot, line: string): void {
    if (HEAP_LIMIT_LINE.test(line) && slot.ended === undefined) {
      const limit = slot.spec.heapLimitMb === undefined ? '' : ` (${slot.spec.heapLimitMb} MB)`;
      slot.ended = { reason: 'memory', detail: `V8 heap limit${limit} reached` };
    }
    this.#o.onOutput?.(slot.spec.name, line);
  }

  #restart(slot: Slot, child: ChildProcess | undefined, exit: RestartInfo['exit']): void {
    const next = nextRestart(slot.failures, Date.now() - slot.startedAt, this.#o);
    slot.failures = next.failures;
    const ended = slot.ended ?? {
      reason: 'exited' as const,
      detail: exit.signal === null ? `exited (code ${exit.code})` : `killed by ${exit.signal}`,
    };
    const restart: RestartInfo = {
      ...ended,
      count: ++slot.restarts,
      pid: child?.pid,
      exit,
      at: new Date(),
      delayMs: next.delayMs,
    };
    this.#o.onRestart?.(slot.spec.name, restart);
    slot.timer = setTimeout(() => this.#launch(slot, restart), next.delayMs);
  }

  #message(slot: Slot, raw: unknown): void {
    slot.lastBeat = Date.now();
    const parsed = parseChildMessage(raw);
    if (!parsed.ok) return this.#o.onMalformed?.(slot.spec.name, parsed.problem);
    if (parsed.message.type !== 'alive') this.#o.onMessage?.(slot.spec.name, parsed.message);
  }

  /** Kills every running child that has not said anything for `timeoutMs` (its first word: longer). */
  #check(timeoutMs: number): void {
    if (this.#stopping) return;
    const now = Date.now();
    const firstBeatMs = this.#o.firstBeatMs ?? Math.max(timeoutMs, 30_000);
    for (const slot of this.#slots) {
      const child = slot.child;
      if (child?.pid === undefined || !running(child) || slot.ended !== undefined) continue;
      const since = slot.lastBeat ?? slot.startedAt;
      const limit = slot.lastBeat === undefined ? firstBeatMs : timeoutMs;
      if (now - since <= limit) continue;
      const silent = secondsText(now - since);
      const detail =
        slot.lastBeat === undefined
          ? `no heartbeat ${silent} after start`
          : `no heartbeat for ${silent}`;
      slot.ended = { reason: 'unresponsive', detail };
      this.#o.onKill?.(slot.spec.name, child.pid, detail);
      killTree(child.pid, 'SIGKILL');
    }
  }

  /**
   * Stops every child: SIGTERM to its process group and to every process below it (in
   * whatever group or session), then SIGKILL to whatever of them still runs after the grace
   * period. Resolves when all of them are gone.
   * @returns the children that had to be killed.
   */
  async stop(): Promise<string[]> {
    this.#stopping = true;
    clearInterval(this.#watch);
    const killed: string[] = [];
    const graceMs = this.#o.stopGraceMs ?? 5000;
    await Promise.all(
      this.#slots.map(async (slot) => {
        clearTimeout(slot.timer);
        const child = slot.child;
        if (child?.pid === undefined) return;
        const pid = child.pid;
        const tree = running(child) ? [...descendantsOf(pid)] : [];
        if (!running(child) && tree.length === 0) return;
        signalGroup(pid, 'SIGTERM');
        signalEach(tree, 'SIGTERM');
        const deadline = Date.now() + graceMs;
        const late = setTimeout(() => {
          const left = [...tree, ...(running(child) ? descendantsOf(pid) : [])].filter(isAlive);
          if (!running(child) && left.length === 0) return;
          killed.push(slot.spec.name);
          this.#o.onKill?.(
            slot.spec.name,
            pid,
            `did not stop within ${graceMs / 1000} s of SIGTERM`,
          );
          signalGroup(pid, 'SIGKILL');
          signalEach(left, 'SIGKILL');
        }, graceMs);
        await slot.exited;
        // a process it started in a session of its own may outlive it: the same grace, then SIGKILL
        await untilGone(tree, deadline);
        clearTimeout(late);
        const left = tree.filter(isAlive);
        if (left.length > 0) {
          if (!killed.includes(slot.spec.name)) killed.push(slot.spec.name);
          signalEach(left, 'SIGKILL');
          await untilGone(left, Date.now() + 1000);
        }
      }),
    );
    return killed;
  }

  /** Kills every child and what it started at once (SIGKILL); for an operator who will not wait. */
  killNow(): void {
    this.#stopping = true;
    clearInterval(this.#watch);
    for (const slot of this.#slots) {
      clearTimeout(slot.timer);
      if (slot.child && running(slot.child)) killTree(slot.child.pid, 'SIGKILL');
    }
  }
}

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** The restart detail of a child that could not be started, naming the command (bounded). */
function cannotStart(spec: ChildSpec, err: Error): string {
  const command = spec.command.length > 200 ? `${spec.command.slice(0, 200)}…` : spec.command;
  return `could not start ${command}: ${err.message.slice(0, 200)}`;
}

/** Waits until none of `pids` is alive, or `deadline` (epoch ms) has passed. */
async function untilGone(pids: readonly number[], deadline: number): Promise<void> {
  let left = pids.filter(isAlive);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = left.filter(isAlive);
  }
}
