import {
  execFile,
  spawn,
  type ChildProcess,
  type IOType,
  type StdioOptions,
} from 'node:child_process';
import { promisify } from 'node:util';
import { descendantsOf, signalEach } from './process-tree.js';

export type { ChildProcess } from 'node:child_process';

/**
 * The one home of child processes in src/ and workers/ (issue 30, ADR 0082): a long-lived
 * child ({@link spawnChild}), a short command's output ({@link runFile}), and the signals
 * that end a child with what it started ({@link signalGroup}, {@link killTree}).
 */

/**
 * The guard a child runs under when it must not outlive this process: a tiny sh in its own
 * process group that holds this process's pipe on fd 3. When this process dies, even by
 * SIGKILL, the pipe closes and the guard stops the child.
 */
const GUARD = [
  'exec 3<&0',
  '"$@" </dev/null 3<&- &',
  'child=$!',
  '(cat <&3 >/dev/null; kill -TERM "$child" 2>/dev/null) &',
  'trap \'kill -TERM "$child" 2>/dev/null; wait "$child"; exit 0\' TERM INT',
  'wait "$child"',
].join('\n');

export interface ChildOptions {
  /** @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** @default ['ignore', 'pipe', 'pipe'] */
  readonly stdio?: StdioOptions;
  /**
   * The child leads a process group of its own, so a terminal's Ctrl-C reaches only this
   * process and {@link signalGroup} reaches the child and all it started. @default false
   */
  readonly group?: boolean;
  /**
   * Run the child under the guard above, named so for `ps` (`caesar-nats`): it cannot outlive
   * this process. Implies `group`; stdin is the guard's pipe, stdout and stderr are piped.
   */
  readonly guard?: string;
}

/** How a child ended. */
export interface ChildExit {
  /** Its exit code; null when a signal ended it or it never started. */
  readonly code: number | null;
  /** The signal that ended it (`SIGKILL` for a `kill -9`). */
  readonly signal: NodeJS.Signals | null;
  /**
   * Why it never started (`spawn x ENOENT`, `EACCES`): Node then emits `error` and no
   * `exit`, which a caller waiting for `exit` would wait for forever.
   */
  readonly spawnError?: Error;
}

/** A child started by {@link spawnChild}. */
export interface Child {
  readonly child: ChildProcess;
  /** Settles once, when the child has exited or could not start. Never rejects. */
  readonly exited: Promise<ChildExit>;
}

/**
 * Starts `command args…`. A command the OS cannot start (missing, not executable) settles
 * `exited` with `spawnError`, as any other end would; only arguments Node refuses outright
 * (a NUL byte) throw here.
 */
export function spawnChild(
  command: string,
  args: readonly string[],
  options: ChildOptions = {},
): Child {
  const guard = options.guard;
  const [file, argv]: [string, string[]] =
    guard === undefined
      ? [command, [...args]]
      : ['/bin/sh', ['-c', GUARD, guard, command, ...args]];
  const child = spawn(file, argv, {
    env: options.env ?? process.env,
    stdio: guard === undefined ? (options.stdio ?? DEFAULT_STDIO) : ['pipe', 'pipe', 'pipe'],
    detached: guard !== undefined || options.group === true,
  });
  const exited = new Promise<ChildExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.on('error', (err) => {
      if (child.pid === undefined) resolve({ code: null, signal: null, spawnError: err });
    });
  });
  return { child, exited };
}

const DEFAULT_STDIO: IOType[] = ['ignore', 'pipe', 'pipe'];

export interface RunFileOptions {
  /** The command is killed (SIGTERM) after this long and the promise rejects. */
  readonly timeoutMs: number;
  /** stdout and stderr each; more kills the command and rejects. @default 1 MiB */
  readonly maxOutputBytes?: number;
  /** @default process.env */
  readonly env?: NodeJS.ProcessEnv;
}

/** What a command run by {@link runFile} printed. */
export interface RunFileOutput {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `file args…` (no shell) to its end and resolves with what it printed. Rejects when it
 * cannot start, exits non-zero, runs past `timeoutMs` or prints more than `maxOutputBytes`;
 * the error is Node's `execFile` error, which carries `code`, `signal`, `killed`, and the
 * `stdout` and `stderr` printed so far.
 */
export function runFile(
  file: string,
  args: readonly string[],
  options: RunFileOptions,
): Promise<RunFileOutput> {
  return promisify(execFile)(file, [...args], {
    timeout: options.timeoutMs,
    maxBuffer: options.maxOutputBytes ?? 1024 * 1024,
    env: options.env ?? process.env,
    encoding: 'utf8',
  });
}

/** Sends `signal` to the process group `pid` leads; a group already gone is fine. */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Sends `signal` to the group `pid` leads and to every process below it, in whatever group
 * or session it moved to (see `descendantsOf`).
 */
export function killTree(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  const below = descendantsOf(pid);
  signalGroup(pid, signal);
  signalEach(below, signal);
}
