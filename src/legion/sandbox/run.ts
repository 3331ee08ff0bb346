import { killTree, spawnChild } from '../../process/index.js';
import { waitAtMost } from '../../clock/index.js';
import type { CallCgroup } from './cgroup.js';
import {
  SandboxCpuLimitError,
  SandboxMemoryLimitError,
  SandboxOutputLimitError,
  SandboxTimeLimitError,
  SandboxUnavailableError,
} from './errors.js';
import type { ResolvedLimits } from './limits.js';
import { TimeoutError } from '../../protocol/index.js';

/** What the program printed and how it ended, for the tool's `parse`. */
export interface CommandResult {
  readonly stdout: string;
  readonly stderr: string;
  /** The program's exit code; 128 + n when signal n ended it (bubblewrap's rule). */
  readonly exitCode: number;
}

/**
 * Enters the call's cgroup, then becomes bubblewrap: a fixed script whose only inputs are
 * positional parameters, so no argument is ever read as shell text. Entering before exec
 * means every process of the sandbox is born inside the cgroup.
 */
const ENTER_CGROUP =
  'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';

/** How long the pipes may stay open after bubblewrap has exited. */
const PIPE_GRACE_MS = 2000;

const SIGXCPU_EXIT = 128 + 24;
const SIGKILL_EXIT = 128 + 9;

export interface RunOptions {
  readonly bwrap: string;
  readonly argv: readonly string[];
  readonly program: string;
  readonly limits: ResolvedLimits;
  readonly cgroup?: CallCgroup;
  readonly signal?: AbortSignal;
}

type KillReason = 'time' | 'stdout' | 'stderr' | 'aborted';

/**
 * Runs one sandboxed call to its end and reads how it ended: a limit the worker enforces
 * (time, output) or the kernel does (CPU by RLIMIT_CPU, memory by the cgroup's OOM kill) is
 * its typed error; a sandbox that never ran the program is `sandbox_unavailable`.
 */
export async function runSandboxed(o: RunOptions): Promise<CommandResult> {
  const [command, args] =
    o.cgroup === undefined
      ? [o.bwrap, ['--json-status-fd', '3', ...o.argv]]
      : [
          '/bin/sh',
          [
            '-c',
            ENTER_CGROUP,
            'caesar-sandbox',
            ...o.cgroup.procsFiles,
            '--',
            o.bwrap,
            '--json-status-fd',
            '3',
            ...o.argv,
          ],
        ];
  const { child, exited } = spawnChild(command, args, {
    env: { PATH: '/usr/bin:/bin' },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    group: true,
  });
  let killed: KillReason | undefined;
  const kill = (reason: KillReason): void => {
    killed ??= reason;
    // bubblewrap's monitor, and the sandbox's init below it in case its death signal is late:
    // the init's end ends its whole pid namespace
    killTree(child.pid, 'SIGKILL');
  };
  const stdout = collect(child.stdout, o.limits.outputBytes, () => kill('stdout'));
  const stderr = collect(child.stderr, o.limits.outputBytes, () => kill('stderr'));
  const status = collect(
    child.stdio[3] as NodeJS.ReadableStream | null,
    64 * 1024,
    () => undefined,
  );
  const timer = setTimeout(() => kill('time'), o.limits.timeoutMs);
  const onAbort = (): void => kill('aborted');
  o.signal?.addEventListener('abort', onAbort, { once: true });
  if (o.signal?.aborted === true) onAbort();
  try {
    const end = await exited;
    // everything in the sandbox dies with its pid namespace, closing the pipes; a pipe still
    // open after that is held by something that escaped it, and is not waited for
    await waitAtMost(Promise.all([stdout.done, stderr.done, status.done]), PIPE_GRACE_MS);
    for (const s of [child.stdout, child.stderr, child.stdio[3]]) s?.destroy();
    if (end.spawnError !== undefined) {
      throw new SandboxUnavailableError({ program: o.program, reason: end.spawnError.message });
    }
    return await classify(o, killed, {
      stdout: stdout.text(),
      stderr: stderr.text(),
      exitCode: exitCodeOf(status.text()),
    });
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onAbort);
  }
}

async function classify(
  o: RunOptions,
  killed: KillReason | undefined,
  r: { stdout: string; stderr: string; exitCode: number | undefined },
): Promise<CommandResult> {
  const program = o.program;
  const l = o.limits;
  if (killed === 'time') throw new SandboxTimeLimitError({ program, limitMs: l.timeoutMs });
  if (killed === 'stdout' || killed === 'stderr') {
    throw new SandboxOutputLimitError({ program, limitBytes: l.outputBytes, stream: killed });
  }
  if (killed === 'aborted')
    throw new TimeoutError(
      `${program} was stopped: the call's deadline passed or the worker is stopping`,
    );
  if (r.exitCode === undefined) {
    const said = r.stderr.split('\n').find((line) => line.startsWith('bwrap:')) ?? r.stderr.trim();
    throw new SandboxUnavailableError({
      program,
      reason: said.slice(0, 300) || 'bubblewrap ended before the program did',
    });
  }
  if (o.cgroup !== undefined && (await o.cgroup.oomKills()) > 0) {
    throw new SandboxMemoryLimitError({ program, limitMb: l.memoryMb });
  }
  // SIGXCPU at the soft limit; SIGKILL at the hard one, the only SIGKILL in the sandbox that
  // is neither the worker's (above) nor an OOM kill (above)
  if (r.exitCode === SIGXCPU_EXIT || r.exitCode === SIGKILL_EXIT) {
    throw new SandboxCpuLimitError({ program, limitSeconds: l.cpuSeconds });
  }
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
}

/** bubblewrap's `{"exit-code": N}` document on the status fd; undefined when it never ran the program. */
export function exitCodeOf(statusText: string): number | undefined {
  const m = /"exit-code"\s*:\s*(\d+)/.exec(statusText);
  return m === null ? undefined : Number(m[1]);
}

function collect(stream: NodeJS.ReadableStream | null, limit: number, over: () => void) {
  const chunks: Buffer[] = [];
  let size = 0;
  const done = new Promise<void>((resolve) => {
    if (stream === null) return resolve();
    stream.on('data', (chunk: Buffer) => {
      if (size > limit) return;
      size += chunk.length;
      if (size > limit) over();
      else chunks.push(chunk);
    });
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
  return { done, text: () => Buffer.concat(chunks).toString('utf8') };
}
