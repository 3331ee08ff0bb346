import type { Command } from 'commander';

/**
 * Each command group lives in its own file (`legion.ts`, `policy.ts`, `audit.ts`, `up.ts`)
 * and exports `register(program)`. This list is the one place that wires them in.
 */
export function registerCommandGroups(_program: Command): void {
  // groups are added here as they land
}
