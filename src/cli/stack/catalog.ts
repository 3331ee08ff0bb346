import { join } from 'node:path';
import { fileExists } from '../../files/index.js';
import { runFile } from '../../process/index.js';
import { jsonRefusal, readJsonText } from '../../text/index.js';
import { MAIN, type CatalogMcpServer } from './children.js';

/** How long the catalog's check may take beyond its modules' imports (see modules.ts). */
const CHECK_MARGIN_MS = 30_000;

/**
 * The catalog's part in `caesar up` (ADR 0090): the modules its entries name (files and
 * packages; shipped tools start anyway, planned stubs and other hosts' tools never here) and
 * the MCP servers its `mcp` entries name (each served by `legion serve-mcp`, ADR 0095),
 * once `caesar catalog check` found every entry matching its module. The check runs in a
 * child process, as `worker.modules`' does, so the supervisor neither imports an operator's
 * module nor loads the catalog's schema (zod); a drifted entry refuses the start with the
 * check's own message (the entry, the field, both values).
 * @throws {Error} the check's message: `catalog_drift`, `catalog_invalid`, a module that does
 *   not load
 */
export async function catalogModules(
  dataDir: string,
  configFile: string | undefined,
  importTimeoutMs: number,
): Promise<{ modules: string[]; mcp: CatalogMcpServer[] }> {
  if (!(await fileExists(join(dataDir, 'catalog.yaml')))) return { modules: [], mcp: [] };
  const args = [MAIN, 'catalog', 'check', '--json', '--data-dir', dataDir];
  if (configFile !== undefined) args.push('--config', configFile);
  args.push('--import-timeout', `${importTimeoutMs}ms`);
  let stdout: string;
  try {
    // each module imports within its bound; the margin covers the rest of the check
    ({ stdout } = await runFile(process.execPath, args, {
      timeoutMs: 8 * importTimeoutMs + CHECK_MARGIN_MS,
    }));
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim().replace(/^caesar: /, '');
    throw new Error(stderr || (err as Error).message, { cause: err });
  }
  const read = readJsonText(stdout.trim().split('\n').at(-1) ?? '');
  if (!read.ok)
    throw new Error(`the catalog check printed a last line that is ${jsonRefusal(read)}`);
  const found = read.value as { modules: string[]; mcp?: CatalogMcpServer[] };
  return { modules: found.modules, mcp: found.mcp ?? [] };
}
