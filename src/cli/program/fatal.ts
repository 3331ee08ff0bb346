import { leaveSupervisor, tellSupervisor } from '../stack/child.js';
import { terminal } from './terminal.js';

/**
 * A command that failed: its message on stderr, exit code 1, and, under `caesar up`, the
 * message to the supervisor, so it stops instead of restarting the process. Resolves once the
 * supervisor has it (and the channel, which would keep the process alive, is closed).
 */
export async function reportFailure(err: unknown): Promise<void> {
  process.exitCode = process.exitCode || 1;
  const message = err instanceof Error ? err.message : String(err);
  terminal.err(`caesar: ${message}`);
  await new Promise<void>((resolve) => {
    const told = tellSupervisor({ type: 'fatal', message }, () => {
      leaveSupervisor();
      resolve();
    });
    if (!told) resolve();
  });
}
