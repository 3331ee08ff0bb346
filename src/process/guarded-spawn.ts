import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/**
 * A server process that cannot outlive its parent: it runs under a tiny sh guard in its own
 * process group, and the guard holds the parent's pipe on fd 3. When the parent dies, even by
 * SIGKILL, the pipe closes and the guard stops the server. Used for the embedded nats-server
 * and, in tests, for Radicale. Stop it with {@link signalGroup}.
 */
const GUARD = [
  'exec 3<&0',
  '"$@" </dev/null 3<&- &',
  'child=$!',
  '(cat <&3 >/dev/null; kill -TERM "$child" 2>/dev/null) &',
  'trap \'kill -TERM "$child" 2>/dev/null; wait "$child"; exit 0\' TERM INT',
  'wait "$child"',
].join('\n');

/** Starts `binary args…` under the guard; `name` is what `ps` shows for the guard. */
export function spawnGuarded(
  name: string,
  binary: string,
  args: readonly string[],
): ChildProcessWithoutNullStreams {
  return spawn('/bin/sh', ['-c', GUARD, name, binary, ...args], {
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Sends `signal` to the guard's whole process group; a group already gone is fine. */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}
