import type { Command } from 'commander';
import { commaList, durationFlag } from '../../program/flags.js';
import type { AddFlags, CatalogFlags, ListFlags } from './catalog.run.js';

function withFiles(command: Command): Command {
  return command
    .option('--config <file>', 'caesar.yaml to read')
    .option('--data-dir <dir>', 'where the catalog lives: <data-dir>/catalog.yaml (default ./var)');
}

/**
 * Adds `caesar catalog add|remove|list|check` (ADR 0090): the tools an operator has, in
 * `<data-dir>/catalog.yaml`. The work (`catalog.run.ts`, `check.run.ts`) loads when a
 * subcommand runs.
 */
export function register(program: Command): void {
  const catalog = program
    .command('catalog')
    .description(
      'list the tools you have (shipped, your modules, planned) in <data-dir>/catalog.yaml',
    );
  withFiles(
    catalog
      .command('add')
      .description(
        "add or update the entries of a module's tools (a file, a package or a shipped tool's name), or a planned stub (--planned)",
      )
      .argument('[module]', 'a file (./weather/tool.js), an installed package, or a shipped tool')
      .option('--planned <name>', 'add a catalog-only stub: listed as planned, never served')
      .option(
        '--purpose <text>',
        "one sentence: what the tool is for (default: the spec's description)",
      )
      .option(
        '--capability <word>',
        "the entry's search key (default: the spec's first capability)",
      )
      .option(
        '--tags <list>',
        "a planned stub's tags, comma-separated (`tool` is always added)",
        commaList,
      )
      .option(
        '--import-timeout <duration>',
        'how long the module may take to import (default worker.import_timeout)',
        durationFlag,
      ),
  ).action(async (module: string | undefined, flags: AddFlags) => {
    const { addEntries } = await import('./catalog.run.js');
    process.exitCode = await addEntries(module, flags);
  });
  withFiles(
    catalog.command('remove').description('remove an entry').argument('<name>', 'the tool name'),
  ).action(async (name: string, flags: CatalogFlags) => {
    const { removeEntry } = await import('./catalog.run.js');
    process.exitCode = await removeEntry(name, flags);
  });
  withFiles(
    catalog
      .command('list')
      .description('print the catalog as a table; imports nothing')
      .option('--json', 'print a JSON array instead of a table')
      .option('--include-tags <list>', 'only entries with every one of these tags', commaList)
      .option('--exclude-tags <list>', 'no entry with any of these tags', commaList),
  ).action(async (flags: ListFlags) => {
    const { listEntries } = await import('./catalog.run.js');
    process.exitCode = await listEntries(flags);
  });
  withFiles(
    catalog
      .command('check')
      .description(
        "import each entry's module and refuse an entry that no longer matches its spec (exit 1)",
      )
      .option('--json', 'print one JSON line: the file, the entries checked, the modules to start')
      .option(
        '--import-timeout <duration>',
        'how long each module may take to import (default worker.import_timeout)',
        durationFlag,
      ),
  ).action(async (flags: CatalogFlags & { json?: boolean }) => {
    const { checkCatalogCommand } = await import('./check.run.js');
    process.exitCode = await checkCatalogCommand(flags);
  });
}
