import type { ChildMessage } from './messages.js';

/**
 * The child's side of `caesar up`'s IPC channel: say something to the supervisor, and stop
 * when it is gone. Outside `caesar up` (no channel) both do nothing.
 */

/** True when this process runs under `caesar up` (it holds an IPC channel). */
export function underSupervisor(): boolean {
  return process.send !== undefined && process.connected;
}

/**
 * Sends `message` to the supervisor; `sent` runs once it is handed over.
 * @returns false when there is no supervisor to tell.
 */
export function tellSupervisor(message: ChildMessage, sent?: () => void): boolean {
  if (!underSupervisor()) return false;
  process.send!(message, undefined, undefined, sent && (() => sent()));
  return true;
}

/**
 * A supervisor that dies, even by SIGKILL, closes the channel: stop gracefully then, as on
 * SIGTERM.
 */
export function stopWithSupervisor(): void {
  if (process.send) process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

/** Closes the channel, which would keep this process alive once its work is done. */
export function leaveSupervisor(): void {
  if (process.connected) process.disconnect();
}
