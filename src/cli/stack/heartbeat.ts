/**
 * The child's heartbeat to `caesar up` (ADR 0070): an `alive` message over the IPC channel
 * every {@link CHILD_HEARTBEAT_MS}, sent from a timer, so it stops when the event loop stops.
 * Started by the CLI entry before anything else loads; nothing without a supervisor.
 * Kept free of imports: the entry runs it before the CLI's modules.
 */

/** How often a child of `caesar up` says it runs; `watchdog.timeout` is at least 4 of these. */
export const CHILD_HEARTBEAT_MS = 500;

export function beatForSupervisor(): void {
  if (process.send === undefined || !process.connected) return;
  const timer = setInterval(() => {
    if (process.connected) process.send!({ type: 'alive' });
    else clearInterval(timer);
  }, CHILD_HEARTBEAT_MS);
  timer.unref();
}
