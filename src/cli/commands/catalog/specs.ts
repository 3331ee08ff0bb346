import { resolve } from 'node:path';
import { loadToolModule, type ToolDefinition } from '../../../legion/index.js';
import { isPlanned, type ToolEntry } from '../../../legion/catalog/index.js';
import { loadShippedTools, shippedToolNames } from '../../../../workers/index.js';
import { isModulePath } from '../../../text/index.js';

/** A module as `caesar catalog add` met it: its tools, its location, how the entry names it. */
export interface LoadedModule {
  readonly module: string;
  readonly location: 'shipped' | 'path' | 'package';
  readonly tools: readonly ToolDefinition[];
}

/**
 * Imports one module (a shipped tool's name, a file, an installed package) once and returns
 * its tools. A file is named by its absolute path, so the entry reads the same from any
 * working directory.
 * @throws {ToolModuleError} as `serve-tool --module` would
 */
export async function loadModule(
  specifier: string,
  cwd: string,
  importTimeoutMs: number,
): Promise<LoadedModule> {
  if (shippedToolNames().includes(specifier)) {
    const location = 'shipped';
    return { module: specifier, location, tools: await loadShippedTools([specifier]) };
  }
  const isPath = isModulePath(specifier);
  const module = isPath ? resolve(cwd, specifier) : specifier;
  const tools = await loadToolModule(module, cwd, { importTimeoutMs });
  return { module, location: isPath ? 'path' : 'package', tools };
}

/**
 * The live tools of every entry that names a module here (not planned, not on another host,
 * not an MCP server's),
 * by module, each module imported once.
 */
export async function liveToolsOf(
  entries: readonly ToolEntry[],
  cwd: string,
  importTimeoutMs: number,
): Promise<Map<string, readonly ToolDefinition[]>> {
  const modules = new Set(
    entries
      .filter((e) => !isPlanned(e) && e.location !== 'host' && e.location !== 'mcp')
      .map((e) => e.module),
  );
  const out = new Map<string, readonly ToolDefinition[]>();
  for (const m of modules) out.set(m, (await loadModule(m, cwd, importTimeoutMs)).tools);
  return out;
}
