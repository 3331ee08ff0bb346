import { CaesarError } from '../../../errors/index.js';
import {
  loadToolModule,
  ToolModuleError,
  type LoadToolModuleOptions,
  type ToolDefinition,
} from '../../../legion/index.js';
import { splitCallable } from '../../../protocol/index.js';
import { loadShippedTools } from '../../../../workers/index.js';
import { takenToolName } from './own-tool-name.js';

/**
 * The tools one `serve-tool` serves (ADR 0055): every `--module`'s tools, or, when names are
 * given, the named ones among the shipped tools and the modules' (so `caesar up` runs one
 * tool of a module per worker, under that tool's identity). A module's tool may not take a
 * shipped tool's name, nor another module's: the brain would see two tools under one name.
 * @throws {ToolModuleError} naming the module, and the clash or the field at fault
 */
export async function loadServedTools(
  names: readonly string[],
  modules: readonly string[],
  cwd: string,
  options: LoadToolModuleOptions = {},
): Promise<ToolDefinition[]> {
  const fromModules = new Map<string, { tool: ToolDefinition; module: string }>();
  for (const module of modules) {
    const tools = await loadToolModule(module, cwd, options);
    for (const tool of tools) {
      const clash = clashOf(tool.name, fromModules.get(tool.name)?.module);
      if (clash !== undefined) {
        const params = { module, tool: tool.name, clash };
        throw new ToolModuleError('tool_module_clash', params, { tool: tool.name });
      }
      fromModules.set(tool.name, { tool, module });
    }
    if (names.length > 0 && !tools.some((t) => isNamed(t.name, names))) {
      throw unpicked(module, tools, names);
    }
  }
  const own = [...fromModules.values()].map((m) => m.tool);
  if (names.length === 0) return own;
  const fromModule = own.filter((t) => isNamed(t.name, names));
  const shipped = await loadShippedTools(
    names.filter((n) => !fromModule.some((t) => isNamed(t.name, [n]))),
  );
  // in the order named; a tool with actions brings each of them (ADR 0092)
  return names.flatMap((n) => [...fromModule, ...shipped].filter((t) => isNamed(t.name, [n])));
}

/** Whether `callable` is one of `names`, or an action of a tool among them. */
function isNamed(callable: string, names: readonly string[]): boolean {
  return names.includes(callable) || names.includes(splitCallable(callable).tool);
}

function clashOf(tool: string, otherModule: string | undefined): string | undefined {
  const taken = takenToolName(tool);
  if (taken !== undefined) {
    return `which is ${taken.why}: rename it (name: '${taken.suggestion}')`;
  }
  if (otherModule !== undefined) {
    return `which module ${otherModule} defines too: rename one of them`;
  }
  return undefined;
}

/** Names were given, and none of them is one of this module's tools. */
function unpicked(module: string, tools: ToolDefinition[], names: readonly string[]): Error {
  return CaesarError.of('usage', {
    argument: `--module ${module}`,
    problem:
      `defines ${tools.map((t) => t.name).join(', ')}, none of the tools named ` +
      `(${names.join(', ')}): name its tool too, or give no names to serve all of its tools`,
  });
}
