import { CaesarError } from '../../../errors/index.js';
import {
  catalogPath,
  entryOfSpec,
  entryWhere,
  mcpEntry,
  plannedEntry,
  readCatalog,
  ToolEntrySchema,
  writeCatalog,
  type Catalog,
  type ToolEntry,
} from '../../../legion/catalog/index.js';
import { describeFirstIssue, matchesTags } from '../../../protocol/index.js';
import { terminalLine } from '../../../text/index.js';
import { endProcess, EXIT_USAGE } from '../../program/exit.js';
import { reportFailure } from '../../program/fatal.js';
import { loadCliConfig } from '../../program/load-config.js';
import { tableLines } from '../../program/table.js';
import { terminal } from '../../program/terminal.js';
import { loadModule } from './specs.js';

/** The flags every `caesar catalog` subcommand takes. */
export interface CatalogFlags {
  config?: string;
  dataDir?: string;
  /** How long a module may take to import, ms. @default worker.import_timeout */
  importTimeout?: number;
}

export interface AddFlags extends CatalogFlags {
  planned?: string;
  purpose?: string;
  capability?: string;
  tags?: string[];
}

export interface ListFlags extends CatalogFlags {
  json?: boolean;
  includeTags?: string[];
  excludeTags?: string[];
}

/** The catalog's file and the import bound, from caesar.yaml, env and the flags. */
export async function catalogConfig(
  flags: CatalogFlags,
): Promise<{ file: string; importTimeoutMs: number }> {
  const raw: Record<string, unknown> =
    flags.dataDir === undefined ? {} : { data_dir: flags.dataDir };
  const config = await loadCliConfig({ config: flags.config, raw });
  const importTimeoutMs = flags.importTimeout ?? config.worker.importTimeoutMs;
  return { file: catalogPath(config.dataDir), importTimeoutMs };
}

/**
 * `caesar catalog add <module>`: imports the module once and writes an entry per tool it
 * defines, from its live spec (an entry of the same name is replaced: how a drifted entry is
 * brought up to date). `--planned <name> --purpose …`: a stub, imported from nowhere.
 */
export async function addEntries(module: string | undefined, flags: AddFlags): Promise<number> {
  if ((module === undefined) === (flags.planned === undefined)) {
    terminal.err('caesar catalog add: give a module, or --planned <name> --purpose <text>');
    return EXIT_USAGE;
  }
  if (flags.planned !== undefined && flags.purpose === undefined) {
    terminal.err('caesar catalog add: --planned needs --purpose <one sentence: what it is for>');
    return EXIT_USAGE;
  }
  if (flags.planned !== undefined) {
    const more = {
      ...(flags.tags === undefined ? {} : { tags: flags.tags }),
      ...(flags.capability === undefined ? {} : { capability: flags.capability }),
    };
    return save(flags, [plannedEntry(flags.planned, flags.purpose!, more)]);
  }
  // a module is the operator's code: whatever it leaves running, the command ends here
  try {
    return await endProcess(await addModules([module!], flags));
  } catch (err) {
    await reportFailure(err);
    return endProcess(1);
  }
}

/**
 * Imports each module once and writes an entry per tool it defines, from its live spec (also
 * `caesar legion serve-tool --module … --catalog`). The caller ends the process.
 */
export async function addModules(modules: readonly string[], flags: AddFlags): Promise<number> {
  const { importTimeoutMs } = await catalogConfig(flags);
  const entries: ToolEntry[] = [];
  for (const module of modules) {
    const loaded = await loadModule(module, process.cwd(), importTimeoutMs);
    for (const t of loaded.tools) {
      entries.push(
        entryOfSpec(t.spec, {
          module: loaded.module,
          location: loaded.location,
          ...(flags.capability === undefined ? {} : { capability: flags.capability }),
          ...(flags.purpose === undefined ? {} : { purpose: flags.purpose }),
        }),
      );
    }
  }
  return save(flags, entries);
}

/**
 * `serve-mcp --catalog`: the server as an `mcp` entry under its tool's name, its command (as
 * given after `--`) or URL, and its `--tools`. The caller ends the process.
 */
export async function addMcpEntry(
  tool: { name: string; version: string; description: string },
  command: readonly string[],
  flags: CatalogFlags & { url?: string; tools?: string[] },
): Promise<number> {
  const where = flags.url === undefined ? { command: [...command] } : { url: flags.url };
  const tools = flags.tools === undefined ? {} : { tools: [...flags.tools] };
  return save(flags, [mcpEntry(tool, { ...where, ...tools })]);
}

/**
 * The next step for tools served from `modules` that the catalog does not list yet: the
 * exact `caesar catalog add` command per module (`serve-tool --module`, `legion new`);
 * undefined when every one is listed. An unreadable catalog is not this command's business.
 */
export async function catalogStep(
  tools: readonly string[],
  modules: readonly string[],
  flags: CatalogFlags,
): Promise<string | undefined> {
  const { file } = await catalogConfig(flags);
  const listed = await readCatalog(file).then(
    (c) => new Set(c.tools.map((t) => t.name)),
    () => undefined,
  );
  if (listed === undefined || tools.every((t) => listed.has(t))) return undefined;
  const dataDir = flags.dataDir === undefined ? '' : ` --data-dir ${flags.dataDir}`;
  const commands = modules.map((m) => `caesar catalog add ${m}${dataDir}`).join('; ');
  return `list it in the catalog (${file}): ${commands}`;
}

/** Checks each entry, replaces those of the same name, writes the file, says what changed. */
async function save(flags: CatalogFlags, entries: readonly ToolEntry[]): Promise<number> {
  const { file } = await catalogConfig(flags);
  for (const e of entries) {
    const checked = ToolEntrySchema.safeParse(e);
    if (!checked.success) {
      const reason = `entry '${e.name}': ${describeFirstIssue(checked.error, 'entry')}`;
      throw CaesarError.of('catalog_entry', { file, reason });
    }
  }
  const catalog = await readCatalog(file);
  const names = new Set(entries.map((e) => e.name));
  const tools = [...catalog.tools.filter((t) => !names.has(t.name)), ...entries];
  await writeCatalog(file, { version: 1, tools });
  for (const e of entries) {
    const was = catalog.tools.some((t) => t.name === e.name) ? 'updated' : 'added';
    const what = e.location === 'planned' ? 'planned' : entryWhere(e);
    terminal.out(terminalLine(`${was} ${e.name} (${what}) in ${file}`));
  }
  return 0;
}

/** `caesar catalog remove <name>`. */
export async function removeEntry(name: string, flags: CatalogFlags): Promise<number> {
  const { file } = await catalogConfig(flags);
  const catalog = await readCatalog(file);
  if (!catalog.tools.some((t) => t.name === name)) {
    const listed = catalog.tools.map((t) => t.name).join(', ') || 'none';
    const reason = `no entry '${name}' to remove (entries: ${listed})`;
    throw CaesarError.of('catalog_entry', { file, reason });
  }
  await writeCatalog(file, { version: 1, tools: catalog.tools.filter((t) => t.name !== name) });
  terminal.out(terminalLine(`removed ${name} from ${file}`));
  return 0;
}

/** `caesar catalog list`: a table (or `--json`), filtered by tag; imports nothing. */
export async function listEntries(flags: ListFlags): Promise<number> {
  const { file } = await catalogConfig(flags);
  const catalog = await readCatalog(file);
  const filter = { includeTags: flags.includeTags ?? [], excludeTags: flags.excludeTags ?? [] };
  const tools = catalog.tools.filter((t) => matchesTags(t.tags, filter));
  if (flags.json === true) {
    terminal.out(JSON.stringify(tools, null, 2));
    return 0;
  }
  if (tools.length === 0) {
    terminal.out(terminalLine(emptyLine(file, catalog)));
    return 0;
  }
  printTable(tools);
  return 0;
}

function emptyLine(file: string, catalog: Catalog): string {
  if (catalog.tools.length > 0) return `no entry of ${file} has those tags`;
  return `${file} lists no tools: add one with \`caesar catalog add <module>\``;
}

/** A row per entry; every cell is file content, escaped as one line before it is measured. */
function printTable(tools: readonly ToolEntry[]): void {
  const rows = [
    ['NAME', 'STATE', 'LOCATION', 'VERSION', 'CAPABILITY', 'TAGS', 'PURPOSE'],
    ...tools.map((t) =>
      [
        t.name,
        t.location === 'planned' ? 'planned' : 'catalogued',
        entryWhere(t),
        t.version || '-',
        t.capability,
        t.tags.join(','),
        t.purpose,
      ].map(terminalLine),
    ),
  ];
  for (const line of tableLines(rows)) terminal.out(line);
}
