// The errors module, not the SDK: `caesar up --help` lists the shipped tools, and this list
// must load nothing heavy to do so (ADR 0047); each tool and the SDK load with it, by import().
import { errorClass } from '../src/errors/index.js';
import type { AnyToolDefinition, ToolDefinition } from '../src/legion/index.js';

/**
 * The tools CAESAR ships, by name. Loaded lazily so `serve-tool calculator` never loads
 * another worker's backend library, and `caesar up`, which needs only the names, loads no
 * tool and not the SDK (the SDK's types are erased; the error class comes from src/errors).
 */
const SHIPPED_TOOLS: Readonly<Record<string, () => Promise<AnyToolDefinition>>> = Object.freeze({
  calculator: async () =>
    (await import('./calculator/index.js')).calculatorTool as AnyToolDefinition,
  dns_lookup: async () =>
    (await import('./dns_lookup/index.js')).dnsLookupTool as AnyToolDefinition,
  calendar_read: async () =>
    (await import('./calendar_read/index.js')).calendarReadTool as AnyToolDefinition,
  call_service: async () =>
    (await import('./call_service/index.js')).callServiceTool as AnyToolDefinition,
  ha_entities: async () =>
    (await import('./ha_entities/index.js')).haEntitiesTool as AnyToolDefinition,
  home_assistant: async () =>
    (await import('./home_assistant/index.js')).homeAssistantTool as AnyToolDefinition,
  web_search: async () =>
    (await import('./web_search/index.js')).webSearchTool as AnyToolDefinition,
});

/**
 * Shipped tools kept for one release under their old names, and the action that replaces
 * each (ADR 0093; `LEGACY_HA_NAMES` in src/protocol, which this list must not load):
 * `serve-tool` still serves them, with a warning; `caesar up` starts the new tool.
 */
const DEPRECATED_TOOLS: Readonly<Record<string, string>> = Object.freeze({
  call_service: 'home_assistant.call_service',
  ha_entities: 'home_assistant.entities',
});

/**
 * Shipped tools `caesar up` starts only when named (`--tools calculator,dns_lookup`): a
 * sandboxed command tool needs bubblewrap and its program on the host (ADR 0097), which a
 * stack should not start without being asked.
 */
const OPT_IN_TOOLS: ReadonlySet<string> = new Set(['dns_lookup']);

/** Every shipped tool a worker can serve, the deprecated ones included. */
export function shippedToolNames(): string[] {
  return Object.keys(SHIPPED_TOOLS).sort();
}

/** The shipped tools `caesar up` starts when not told which: all but the deprecated and opt-in ones. */
export function defaultToolNames(): string[] {
  return shippedToolNames().filter(
    (n) => !Object.hasOwn(DEPRECATED_TOOLS, n) && !OPT_IN_TOOLS.has(n),
  );
}

/** Why a shipped tool name is deprecated and what to serve instead; undefined if it is not. */
export function deprecatedToolNote(name: string): string | undefined {
  const action = Object.hasOwn(DEPRECATED_TOOLS, name) ? DEPRECATED_TOOLS[name] : undefined;
  if (action === undefined) return undefined;
  const instead = action.slice(0, action.indexOf('.'));
  return (
    `'${name}' is deprecated and will be removed in the next release: serve '${instead}' ` +
    `instead (its actions include ${action}; ` +
    'policies and intents that name the old tool keep working)'
  );
}

/** `serve-tool` was given a tool this build does not ship. */
const UnknownToolError = errorClass('tool_unknown', (unknown: readonly string[]) => ({
  params: {
    names: unknown.map((n) => `'${n}'`).join(', '),
    shipped: shippedToolNames().join(', '),
  },
  fields: { unknown },
}));

/**
 * Loads shipped tools by name, as the callables they serve (a tool with actions gives one
 * per action, ADR 0092); an unknown name lists the ones that exist.
 */
export async function loadShippedTools(names: readonly string[]): Promise<ToolDefinition[]> {
  const unknown = names.filter((n) => !Object.hasOwn(SHIPPED_TOOLS, n));
  if (unknown.length > 0) {
    throw new UnknownToolError(unknown);
  }
  // the SDK loads with the tools anyway; `caesar up --help` reaches neither
  const [{ callablesOf }, tools] = await Promise.all([
    import('../src/legion/index.js'),
    Promise.all(names.map((n) => SHIPPED_TOOLS[n]!())),
  ]);
  return tools.flatMap(callablesOf);
}
