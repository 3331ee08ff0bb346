import {
  describeDrift,
  driftOf,
  readCatalog,
  type Drift,
  type McpServerEntry,
} from '../../../legion/catalog/index.js';

/** An `mcp` entry `caesar up` serves with `legion serve-mcp`: its tool name and server. */
export type McpServerToStart = McpServerEntry & { readonly name: string };
import { CaesarError } from '../../../errors/index.js';
import { endProcess } from '../../program/exit.js';
import { reportFailure } from '../../program/fatal.js';
import { terminal } from '../../program/terminal.js';
import { terminalLine } from '../../../text/index.js';
import { catalogConfig, type CatalogFlags } from './catalog.run.js';
import { liveToolsOf } from './specs.js';

/**
 * Every drifted field of the catalog in `file`: each entry's module imported (once), its spec
 * held against the entry (Colony's ToolEntrySpecMismatch). Planned stubs and entries served
 * from another host are exempt.
 */
export async function catalogDrift(
  file: string,
  cwd: string,
  importTimeoutMs: number,
): Promise<{
  drifts: Drift[];
  checked: number;
  planned: number;
  modules: string[];
  mcp: McpServerToStart[];
}> {
  const catalog = await readCatalog(file);
  const live = await liveToolsOf(catalog.tools, cwd, importTimeoutMs);
  const drifts: Drift[] = [];
  let checked = 0;
  for (const entry of catalog.tools) {
    const tools = live.get(entry.module);
    if (tools === undefined) continue;
    checked++;
    drifts.push(...driftOf(entry, tools.find((t) => t.name === entry.name)?.spec));
  }
  const planned = catalog.tools.filter((e) => e.location === 'planned').length;
  // what `caesar up` starts: files and packages (shipped tools start anyway)
  const modules = catalog.tools
    .filter((e) => e.location === 'path' || e.location === 'package')
    .map((e) => e.module);
  // and the MCP servers its mcp entries name, each served as its entry's tool (ADR 0095)
  const mcp = catalog.tools.flatMap((e) =>
    e.location === 'mcp' && e.mcp !== undefined ? [{ name: e.name, ...e.mcp }] : [],
  );
  return { drifts, checked, planned, modules: [...new Set(modules)], mcp };
}

/** `catalog_drift`: the file, each drifted entry with its field and both values, the fix. */
export function driftError(file: string, drifts: readonly Drift[]): CaesarError {
  const names = [...new Set(drifts.map((d) => d.entry))];
  return CaesarError.of('catalog_drift', {
    file,
    drift: drifts.map(describeDrift).join('; '),
    next:
      `Update the ${names.length === 1 ? 'entry' : 'entries'} from the module ` +
      `(\`caesar catalog add <module>\` replaces an entry), or put the module back as it was`,
  });
}

/**
 * `caesar catalog check`: 0 when every entry matches its module, else `catalog_drift` on
 * stderr and 1. The modules are the operator's code: the process ends when the check does.
 */
export async function checkCatalogCommand(
  flags: CatalogFlags & { json?: boolean },
): Promise<number> {
  try {
    const { file, importTimeoutMs } = await catalogConfig(flags);
    const found = await catalogDrift(file, process.cwd(), importTimeoutMs);
    const { drifts, checked, planned, modules, mcp } = found;
    if (drifts.length > 0) throw driftError(file, drifts);
    if (flags.json === true) {
      // one line: `caesar up` reads the modules to start from it
      terminal.out(JSON.stringify({ file, checked, planned, modules, mcp }));
      return await endProcess(0);
    }
    const stubs = planned === 0 ? '' : ` (${planned} planned, not checked)`;
    const match = checked === 1 ? 'entry matches its module' : 'entries match their modules';
    terminal.out(terminalLine(`${file}: ${checked} ${match}${stubs}`));
    return await endProcess(0);
  } catch (err) {
    await reportFailure(err);
    return endProcess(1);
  }
}
