import type { Command } from 'commander';
import { done } from '../../program/exit.js';
import { positiveInt, subcommand } from './flags.js';
import type { VerifyOptions } from './verify.run.js';

/** Adds `caesar audit verify`; `verify.run.ts` loads when it runs. */
export function addVerify(group: Command): void {
  subcommand(group, 'verify', 'walk the hash chain; exit 1 and the first bad seq when tampered')
    .option('--json', 'print the report as JSON')
    .option('--threads <n>', 'worker threads (default: up to 4 for large logs)', positiveInt)
    .option(
      '--expect-head <seq:hash>',
      'a head recorded earlier (verify prints it): fail if that row is gone or changed',
    )
    .action(async (opts: VerifyOptions) => {
      const { runAuditVerify } = await import('./verify.run.js');
      done(await runAuditVerify(opts));
    });
}
