import { splitCallable } from '../protocol/index.js';
import { closest, isRecord } from '../text/index.js';
import { actionKeys } from './action-keys.js';
import type { CompileContext } from './compile-context.js';
import type { PolicyIssue } from './issues.js';

/** The tool rule lists: a tool named in them is checked against the tools known to exist. */
const TOOL_LISTS = ['allowed_tools', 'denied_tools'] as const;

/** A tool a tool rule names, and where its name is written (`tool:`'s value, or the item). */
export interface ToolMention {
  readonly list: (typeof TOOL_LISTS)[number];
  readonly index: number;
  readonly tool: string;
  readonly line: number;
  readonly column: number;
}

/** At most this many known names are listed when none is close to an unknown one. */
const MAX_LISTED = 8;

/** What the brain says of a tool no live worker serves and no catalog lists. */
export const SERVED_BY_NONE = 'is served by no worker and listed in no catalog';

/** Every tool the file's tool rules name, in file order, with the place of its name. */
export function toolMentions(
  ctx: CompileContext,
  spec: {
    readonly [L in ToolMention['list']]: readonly {
      readonly tool: string;
      readonly actions?: readonly string[];
    }[];
  },
): ToolMention[] {
  const doc = isRecord(ctx.source.value) ? ctx.source.value : {};
  return TOOL_LISTS.flatMap((list) => {
    const raw: unknown = doc[list];
    return spec[list].map((rule, index) => {
      const item: unknown = Array.isArray(raw) ? raw[index] : undefined;
      // `- tool: calculator`: the value; the shorthand `- calculator`: the item itself
      const at = ctx.source.locate(isRecord(item) ? [list, index, 'tool'] : [list, index]);
      // `actions: [a, b]`: each action is a tool id of its own (ADR 0092)
      return actionKeys(rule).map((tool) => ({ list, index, tool, ...at }));
    });
  }).flat();
}

/** What not being known means where it is asked, and the tools only planned there. */
export interface UnknownToolOptions {
  /** What not being known means where it is asked. @default {@link SERVED_BY_NONE} */
  readonly unknown?: string;
  /**
   * Tools the catalog lists as planned stubs (ADR 0090): known by name, not callable yet. A
   * rule naming one (or a tool of its actions) is told so instead of "unknown".
   */
  readonly planned?: Iterable<string>;
}

/** What the brain and `caesar policy check` say of a rule naming a planned stub. */
export const PLANNED =
  'is planned in the catalog: not callable yet, no worker serves it; the rule applies once one does';

/**
 * A warning for each tool rule naming a tool that is not `known` (the shipped tools, the
 * tools live workers serve, the catalog's: whatever the caller knows), with a "did you mean"
 * to the closest known name. A warning, not an error: a worker that serves the tool may come
 * later, and then the rule applies as written. A rule naming a planned stub says so instead.
 * A known `tool.action` makes its tool's name known too (ADR 0092).
 */
export function unknownToolWarnings(
  mentions: readonly ToolMention[],
  known: Iterable<string>,
  options: UnknownToolOptions = {},
): PolicyIssue[] {
  const names = [...new Set(known)].sort();
  const planned = [...new Set(options.planned)].sort();
  const have = withToolNames(names);
  const stubs = withToolNames(planned);
  // the hint may point at a planned stub too: it is a name the operator wrote down
  const hinted = [...new Set([...names, ...planned])].sort();
  return mentions
    .filter((m) => !have.has(m.tool))
    .map((m) => {
      const path = `${m.list}[${m.index}].tool`;
      const at = { path, line: m.line, column: m.column };
      if (stubs.has(m.tool)) return { ...at, message: `'${m.tool}' ${PLANNED}` };
      const unknown = options.unknown ?? SERVED_BY_NONE;
      return { ...at, message: `'${m.tool}' ${unknown}; ${hintFor(m.tool, hinted)}` };
    });
}

/** The names, and the tool of each `tool.action` among them: a rule naming it covers them all. */
function withToolNames(names: readonly string[]): Set<string> {
  return new Set([...names, ...names.map((n) => splitCallable(n).tool)]);
}

function hintFor(tool: string, names: readonly string[]): string {
  const near = closest(tool, names);
  if (near !== undefined) return `did you mean '${near}'?`;
  return names.length === 0 ? 'no tool is known here' : `known tools: ${listOf(names)}`;
}

/**
 * The allow rule naming a tool spelled like `tool` but not `tool` itself (`calculater` for a
 * call of `calculator`), for the reason of a call no allow rule lists.
 */
export function nearMissAllow(
  mentions: readonly ToolMention[],
  tool: string,
): ToolMention | undefined {
  const allowed = mentions.filter((m) => m.list === 'allowed_tools' && m.tool !== tool);
  const near = closest(
    tool,
    allowed.map((m) => m.tool),
  );
  return near === undefined ? undefined : allowed.find((m) => m.tool === near);
}

function listOf(names: readonly string[]): string {
  const shown = names.slice(0, MAX_LISTED).join(', ');
  return names.length > MAX_LISTED ? `${shown}, … (${names.length} in all)` : shown;
}
