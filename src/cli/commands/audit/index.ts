import type { Command } from 'commander';
import { usageExit } from '../../program/exit.js';
import { addBackup } from './backup.js';
import { addExport } from './export.js';
import { addQuery } from './query.js';
import { addRestore } from './restore.js';
import { addStats } from './stats.js';
import { addTail } from './tail.js';
import { addVerify } from './verify.js';

/** Adds `caesar audit tail|query|verify|stats|export|backup|restore`, one file each. */
export function register(program: Command): void {
  const group = program
    .command('audit')
    .description('read, verify, export, back up and restore the audit log')
    .exitOverride(usageExit);
  for (const add of [addTail, addQuery, addVerify, addStats, addExport, addBackup, addRestore]) {
    add(group);
  }
}
