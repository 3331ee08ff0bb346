import type { Command } from 'commander';
import { addList } from './list.js';
import { addPermissions } from './permissions.js';
import { addServeTool } from './serve-tool.js';

/** Adds `caesar legion serve-tool|list|permissions`, one file each. */
export function register(program: Command): void {
  const legion = program.command('legion').description('run and inspect tool workers');
  for (const add of [addServeTool, addList, addPermissions]) add(legion);
}
