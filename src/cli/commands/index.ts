import type { Command } from 'commander';
import { register as registerAudit } from './audit.js';
import { register as registerChat } from './chat.js';
import { register as registerInvoke } from './invoke.js';
import { register as registerBrain } from './brain.js';
import { register as registerConfig } from './config.js';
import { register as registerLegion } from './legion.js';
import { register as registerPolicy } from './policy.js';
import { register as registerUp } from './up.js';

/**
 * Each command group lives in its own file (`legion.ts`, `policy.ts`, `audit.ts`, `up.ts`)
 * and exports `register(program)`. This list is the one place that wires them in.
 */
export function registerCommandGroups(program: Command): void {
  registerUp(program);
  registerBrain(program);
  registerLegion(program);
  registerPolicy(program);
  registerAudit(program);
  registerChat(program);
  registerInvoke(program);
  registerConfig(program);
}
