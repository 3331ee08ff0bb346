import type { Command } from 'commander';
import { register as registerAudit } from './audit.js';
import { register as registerLegion } from './legion.js';
import { register as registerPolicy } from './policy.js';
import { register as registerUp } from './up.js';

/**
 * Each command group lives in its own file (`legion.ts`, `policy.ts`, `audit.ts`, `up.ts`)
 * and exports `register(program)`. This list is the one place that wires them in.
 */
export function registerCommandGroups(program: Command): void {
  registerUp(program);
  registerLegion(program);
  registerPolicy(program);
  registerAudit(program);
}
