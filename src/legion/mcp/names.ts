import {
  actionName,
  MAX_ACTIONS_PER_TOOL,
  MAX_CALLABLE_NAME_CHARS,
  TOOL_NAME_PATTERN,
} from '../../protocol/index.js';

/**
 * An MCP server's tool names as CAESAR action names (ADR 0095). MCP allows 1-128 characters
 * of `[A-Za-z0-9_.-]` (and older servers use more); an action is `^[a-z][a-z0-9_]*$` and
 * `<tool>.<action>` at most 64 characters. The mapping is one rule, deterministic, and never
 * merges two tools silently: a collision or a name too long is refused, naming the tools.
 */

/** The longest MCP tool name read at all (the MCP spec's own bound). */
export const MAX_MCP_TOOL_NAME_CHARS = 128;

/**
 * The action name of an MCP tool name: a camelCase boundary becomes `_` (`readFile` ->
 * `read_file`, `getHTTPStatus` -> `get_http_status`), letters are lowered, every character
 * outside `a-z0-9_` becomes `_` (`get-sum` -> `get_sum`), runs of `_` become one and a
 * leading or trailing `_` goes; a name that does not start with a letter gets `t_` in front
 * (`2fa` -> `t_2fa`). Empty when nothing of the name is left.
 */
export function actionNameOf(mcpName: string): string {
  const words = mcpName
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
  if (words === '') return '';
  return /^[a-z]/.test(words) ? words : `t_${words}`;
}

/** One served MCP tool: its name on the server and its action's name here. */
export interface MappedName {
  readonly mcp: string;
  readonly action: string;
}

/** The mapping of a server's tools, or why it cannot be served (each problem one sentence). */
export type NameMapping =
  | { readonly ok: true; readonly names: readonly MappedName[] }
  | { readonly ok: false; readonly problems: readonly string[] };

/** A server's tool name as a message shows it: quoted and escaped (it is outside text). */
export function quoted(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
}

/**
 * The action names of `mcpNames` (already filtered by `--tools`) under the tool `tool`:
 * refuses a name that maps to nothing or to a callable longer than 64 characters, two names
 * that map to one action, and more tools than a tool may have actions.
 */
export function mapToolNames(tool: string, mcpNames: readonly string[]): NameMapping {
  const problems: string[] = [];
  const byAction = new Map<string, string>();
  const names: MappedName[] = [];
  for (const mcp of mcpNames) {
    const action = mcp.length > MAX_MCP_TOOL_NAME_CHARS ? '' : actionNameOf(mcp);
    if (action === '' || !TOOL_NAME_PATTERN.test(action)) {
      problems.push(`tool ${quoted(mcp)} has no usable name (1-128 characters, letters first)`);
      continue;
    }
    const full = actionName(tool, action);
    if (full.length > MAX_CALLABLE_NAME_CHARS) {
      problems.push(
        `tool ${quoted(mcp)} would be '${full}', longer than ${MAX_CALLABLE_NAME_CHARS} characters: ` +
          'give the server a shorter name, or leave the tool out with --tools',
      );
      continue;
    }
    const other = byAction.get(action);
    if (other !== undefined) {
      problems.push(
        `tools ${quoted(other)} and ${quoted(mcp)} would both be '${full}': leave one out with --tools`,
      );
      continue;
    }
    byAction.set(action, mcp);
    names.push({ mcp, action });
  }
  if (mcpNames.length > MAX_ACTIONS_PER_TOOL) {
    problems.push(
      `it serves ${mcpNames.length} tools, more than the ${MAX_ACTIONS_PER_TOOL} actions one tool ` +
        `may have: pick at most ${MAX_ACTIONS_PER_TOOL} with --tools a,b (or serve the rest ` +
        'under a second name)',
    );
  }
  return problems.length === 0 ? { ok: true, names } : { ok: false, problems };
}

/**
 * The server's tools that `--tools` keeps, each asked-for name matched against a tool's MCP
 * name or its action name. Unset keeps every tool. Returns the kept names in the server's
 * order, and the asked-for names no tool has.
 */
export function pickTools(
  available: readonly string[],
  asked: readonly string[] | undefined,
): { kept: string[]; unknown: string[] } {
  if (asked === undefined) return { kept: [...available], unknown: [] };
  const wanted = new Set(asked);
  const kept = available.filter((n) => wanted.has(n) || wanted.has(actionNameOf(n)));
  const known = new Set([...available, ...available.map(actionNameOf)]);
  return { kept, unknown: asked.filter((n) => !known.has(n)) };
}
