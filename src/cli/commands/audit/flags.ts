import { InvalidArgumentError, type Command } from 'commander';
import { usageExit } from '../../program/exit.js';

/**
 * The flags every `caesar audit ...` subcommand takes (which log it opens), declared without
 * loading the audit log (ADR 0047).
 */

/** Which log a command opens. */
export interface DbOptions {
  /** The SQLite file; beats everything else. */
  db?: string;
  /** Where runtime.json and the default `audit.db` live. @default config `data_dir`, `./var` */
  dataDir?: string;
  /** caesar.yaml to read `audit.file` and `data_dir` from. */
  config?: string;
}

/** `caesar audit <name>` with the flags that choose the log. */
export function subcommand(group: Command, name: string, description: string): Command {
  return group
    .command(name)
    .description(description)
    .option('--db <file>', "audit database (default: audit.file, else the running stack's)")
    .option('--data-dir <dir>', 'data directory of the running stack (default ./var)')
    .option('--config <file>', 'caesar.yaml to read (default: $CAESAR_CONFIG, ./caesar.yaml)')
    .exitOverride(usageExit);
}

export function positiveInt(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number');
  return n;
}
