import type { Command } from 'commander';
import { done } from '../../program/exit.js';
import { withFilters } from './filters.js';
import { subcommand } from './flags.js';
import type { ExportOptions } from './export.run.js';

/** Adds `caesar audit export`; `export.run.ts` loads when it runs. */
export function addExport(group: Command): void {
  withFilters(subcommand(group, 'export', 'every matching row, oldest first, as JSON lines'))
    .option('--format <format>', 'output format (jsonl)', 'jsonl')
    .option('--out <file>', 'write to a new file instead of stdout')
    .action(async (opts: ExportOptions) => {
      const { runAuditExport } = await import('./export.run.js');
      done(await runAuditExport(opts));
    });
}
