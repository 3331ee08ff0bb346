import type { CommanderError } from 'commander';

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
