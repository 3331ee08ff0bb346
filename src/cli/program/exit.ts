import type { CommanderError } from 'commander';
import { terminal } from './terminal.js';

/** Exit code of a usage error (a bad flag, a missing argument, bad JSON) in every command. */
export const EXIT_USAGE = 2;

/** For commander's `exitOverride`: a usage error exits 2; `--help` exits 0. */
export function usageExit(err: CommanderError): never {
  process.exit(err.exitCode === 0 ? 0 : EXIT_USAGE);
}

/** Sets the exit code a command ended with; the process exits once its work is done. */
export function done(code: number): void {
  process.exitCode = code;
}

/**
 * Ends the process with `code` once its output is written, whatever else is still running:
 * for a command that ran code of the operator's (a tool module), which may have left timers,
 * sockets or an import that never settles behind it.
 */
export async function endProcess(code: number): Promise<never> {
  await terminal.flushed();
  process.exit(code);
}
