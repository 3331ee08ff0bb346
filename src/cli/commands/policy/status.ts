import type { Command } from 'commander';
import { done, usageExit } from '../../program/exit.js';
import { addApiFlags, type ApiFlags } from '../../program/flags.js';

/** Adds `caesar policy status`; `status.run.ts` loads when it runs. */
export function addStatus(group: Command): void {
  addApiFlags(
    group
      .command('status')
      .description(
        'what the running brain enforces: the policy sha, whether the file on disk matches, the last reload error (exit 0 ok, 1 broken or stale)',
      )
      .option('--json', 'print the GET /v1/policy answer as JSON')
      .exitOverride(usageExit),
  ).action(async (flags: ApiFlags & { json?: boolean }) => {
    const { runPolicyStatus } = await import('./status.run.js');
    done(await runPolicyStatus(flags));
  });
}
