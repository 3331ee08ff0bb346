// The errors module, not the SDK: `caesar up --help` lists the shipped tools, and this list
// must load nothing heavy to do so (ADR 0047); each tool and the SDK load with it, by import().
import { errorClass } from '../src/errors/index.js';
import type { ToolDefinition } from '../src/legion/index.js';

/**
 * The tools CAESAR ships, by name. Loaded lazily so `serve-tool calculator` never loads
 * another worker's backend library, and `caesar up`, which needs only the names, loads no
 * tool and not the SDK (the SDK's types are erased; the error class comes from src/errors).
 */
const SHIPPED_TOOLS: Readonly<Record<string, () => Promise<ToolDefinition>>> = Object.freeze({
  calculator: async () => (await import('./calculator/index.js')).calculatorTool as ToolDefinition,
  calendar_read: async () =>
    (await import('./calendar_read/index.js')).calendarReadTool as ToolDefinition,
  call_service: async () =>
    (await import('./call_service/index.js')).callServiceTool as ToolDefinition,
  ha_entities: async () =>
    (await import('./ha_entities/index.js')).haEntitiesTool as ToolDefinition,
  web_search: async () => (await import('./web_search/index.js')).webSearchTool as ToolDefinition,
});

export function shippedToolNames(): string[] {
  return Object.keys(SHIPPED_TOOLS).sort();
}

/** `serve-tool` was given a tool this build does not ship. */
const UnknownToolError = errorClass('tool_unknown', (unknown: readonly string[]) => ({
  params: {
    names: unknown.map((n) => `'${n}'`).join(', '),
    shipped: shippedToolNames().join(', '),
  },
  fields: { unknown },
}));

/** Loads shipped tools by name; an unknown name lists the ones that exist. */
export async function loadShippedTools(names: readonly string[]): Promise<ToolDefinition[]> {
  const unknown = names.filter((n) => !Object.hasOwn(SHIPPED_TOOLS, n));
  if (unknown.length > 0) {
    throw new UnknownToolError(unknown);
  }
  return Promise.all(names.map((n) => SHIPPED_TOOLS[n]!()));
}
