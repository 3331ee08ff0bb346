import type { Command } from 'commander';
import { usageExit } from '../../program/exit.js';
import { addCheck } from './check.js';
import { addExplain } from './explain.js';
import { addStatus } from './status.js';
import { addTest } from './test.js';

/** Adds `caesar policy check|explain|status|test`, one file each. */
export function register(program: Command): void {
  const group = program
    .command('policy')
    .description(
      'check, explain and test the tool-call policy (policy.yaml); status of the running brain',
    )
    .exitOverride(usageExit);
  for (const add of [addCheck, addExplain, addStatus, addTest]) add(group);
}
