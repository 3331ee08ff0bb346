import type { Command } from 'commander';
import { addIdentity } from './identity.js';
import { addList } from './list.js';
import { addNew } from './new.js';
import { addPermissions } from './permissions.js';
import { addServeMcp } from './serve-mcp.js';
import { addServeTool } from './serve-tool.js';

/** Adds `caesar legion serve-tool|serve-mcp|list|permissions|identity|new`, one file each. */
export function register(program: Command): void {
  const legion = program.command('legion').description('run and inspect tool workers');
  for (const add of [addServeTool, addServeMcp, addList, addPermissions, addIdentity, addNew])
    add(legion);
}
