import type { Command } from 'commander';
import { done } from '../../program/exit.js';
import { withPolicyFlags, type PolicyFileOptions } from './flags.js';

/** Adds `caesar policy test`; `test.run.ts` loads when it runs. */
export function addTest(group: Command): void {
  withPolicyFlags(
    group
      .command('test')
      .description('run a cases file of calls and expected outcomes against the policy')
      .argument('<cases>', 'cases file (YAML), see docs/policy.md'),
  ).action(async (cases: string, opts: PolicyFileOptions) => {
    const { runPolicyTest } = await import('./test.run.js');
    done(await runPolicyTest(cases, opts));
  });
}
