import type { Command } from 'commander';
import { usageExit } from '../../program/exit.js';

/**
 * The flags every `caesar policy ...` subcommand takes, declared without loading the policy
 * engine or the config (ADR 0047).
 */

/** Which policy file a subcommand loads, and `--json`. */
export interface PolicyFileOptions {
  /** The policy file; default: the configured one (`policy.file`, `<data_dir>/policy.yaml`). */
  policy?: string;
  /** caesar.yaml to read the configured policy file from. */
  config?: string;
  /** Data directory of the running stack, whose runtime.json names its policy file. */
  dataDir?: string;
  json?: boolean;
}

/** `caesar policy check`'s: the shared ones and `--strict`. */
export interface PolicyCheckOptions extends PolicyFileOptions {
  /** Exit 1 when the policy loads with warnings. */
  strict?: boolean;
}

/** The flags every subcommand takes: which policy file, and `--json`. */
export function withPolicyFlags(cmd: Command): Command {
  return cmd
    .option('-p, --policy <file>', 'policy file (default: policy.file of the config)')
    .option('--config <file>', 'caesar.yaml to read (default: $CAESAR_CONFIG, then ./caesar.yaml)')
    .option('--data-dir <dir>', 'data directory of the running stack (default ./var)')
    .option('--json', 'print JSON')
    .exitOverride(usageExit);
}
