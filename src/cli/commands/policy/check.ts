import type { Command } from 'commander';
import { done } from '../../program/exit.js';
import { withPolicyFlags, type PolicyCheckOptions } from './flags.js';

/** Adds `caesar policy check`; `check.run.ts` loads when it runs. */
export function addCheck(group: Command): void {
  withPolicyFlags(
    group
      .command('check')
      .description('validate the policy file; report problems with file:line:column')
      .argument('[file]', 'policy file (same as --policy)')
      .option('--strict', 'exit 1 when the policy loads with warnings (default: warnings exit 0)'),
  ).action(async (file: string | undefined, opts: PolicyCheckOptions) => {
    const { runPolicyCheck } = await import('./check.run.js');
    done(await runPolicyCheck(file, opts));
  });
}
