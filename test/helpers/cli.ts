import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The compiled CLI; `npm test` builds it first (scripts/setup.mjs). */
export const CLI = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: run \`npm run build\` (npm test does it)`);
}

export interface RunningCli {
  child: ChildProcess;
  /** Every stdout line so far. */
  lines: string[];
  /** Resolves with the first stdout line matching `re`. */
  waitForLine(re: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Resolves once the process exited and its stdout and stderr were read to the end ('exit'
   * can come first: a loaded machine then reads the last output after it).
   */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

/** Who a child runs as (set uid and gid to drop root, for file-permission tests), and where. */
export interface RunAs {
  uid?: number;
  gid?: number;
  /** Its working directory. @default the test runner's */
  cwd?: string;
}

/** Starts `caesar <args>` as a real process, collecting its output line by line. */
export function startCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  runAs: RunAs = {},
): RunningCli {
  assertBuilt();
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...runAs,
  });
  const lines: string[] = [];
  const waiters: { re: RegExp; resolve: (l: string) => void }[] = [];
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-20_000)));
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const w of [...waiters]) {
      if (w.re.test(line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    lines,
    exited,
    closed,
    stderr: () => err,
    waitForLine(re, timeoutMs = 20_000) {
      const hit = lines.find((l) => re.test(l));
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `no line matching ${re} within ${timeoutMs} ms; stdout:\n${lines.join('\n')}\nstderr:\n${err}`,
              ),
            ),
          timeoutMs,
        );
        waiters.push({
          re,
          resolve: (l) => {
            clearTimeout(timer);
            resolve(l);
          },
        });
        void exited.then(() => {
          clearTimeout(timer);
          reject(
            new Error(
              `process exited before a line matched ${re}; stdout:\n${lines.join('\n')}\nstderr:\n${err}`,
            ),
          );
        });
      });
    },
  };
}

/** Runs `caesar <args>` to completion, its output read to the end. */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}, runAs: RunAs = {}) {
  const p = startCli(args, env, runAs);
  const { code } = await p.closed;
  return { code, stdout: p.lines.join('\n'), stderr: p.stderr() };
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
