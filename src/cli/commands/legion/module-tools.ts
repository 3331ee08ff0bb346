import { errorMessage } from '../../../errors/index.js';
import { loadToolModule, ToolModuleError, type ToolDefinition } from '../../../legion/index.js';
import { loadShippedTools, shippedToolNames } from '../../../../workers/index.js';

/**
 * The tools one `serve-tool` serves: the shipped ones it names, then each `--module`'s
 * (ADR 0055). A module's tool may not take a shipped tool's name, nor another module's: the
 * brain would see two different tools under one name.
 * @throws {ToolModuleError} naming the module, and the clash or the field at fault
 */
export async function loadServedTools(
  names: readonly string[],
  modules: readonly string[],
  cwd: string,
): Promise<ToolDefinition[]> {
  const tools = await loadShippedTools(names);
  const from = new Map<string, string>();
  for (const module of modules) {
    for (const tool of await loadToolModule(module, cwd)) {
      const clash = clashOf(tool.name, from.get(tool.name));
      if (clash !== undefined) {
        const message = errorMessage('tool_module_clash', { module, tool: tool.name, clash });
        throw new ToolModuleError('tool_module_clash', message, module, { tool: tool.name });
      }
      from.set(tool.name, module);
      tools.push(tool);
    }
  }
  return tools;
}

function clashOf(tool: string, otherModule: string | undefined): string | undefined {
  if (shippedToolNames().includes(tool)) {
    return `which is the name of a tool CAESAR ships: rename it (name: 'my_${tool}')`;
  }
  if (otherModule !== undefined) {
    return `which module ${otherModule} defines too: rename one of them`;
  }
  return undefined;
}
