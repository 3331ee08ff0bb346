import type { Command } from 'commander';
import { usageExit } from '../../exit.js';
import { addBackup } from './backup.js';
import { addExport } from './export.js';
import { addQuery } from './query.js';
import { addRestore } from './restore.js';
import { addStats } from './stats.js';
import { addTail } from './tail.js';
import { addVerify } from './verify.js';

export { EXIT_FAILED, EXIT_OK, EXIT_USAGE, defaultAuditDbPath, resolveAuditDb } from './log.js';
export type { AuditCliIo, DbOptions } from './log.js';
export { parseTime } from './filters.js';
export type { FilterOptions } from './filters.js';
export { runAuditBackup } from './backup.js';
export { runAuditExport } from './export.js';
export type { ExportOptions } from './export.js';
export { runAuditQuery } from './query.js';
export type { QueryOptions } from './query.js';
export { runAuditRestore } from './restore.js';
export { runAuditStats } from './stats.js';
export { runAuditTail } from './tail.js';
export type { TailOptions } from './tail.js';
export { runAuditVerify } from './verify.js';
export type { VerifyOptions } from './verify.js';

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
