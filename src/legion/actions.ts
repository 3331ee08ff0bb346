import type { z } from 'zod';
import {
  actionName,
  MAX_CALLABLE_NAME_CHARS,
  MAX_ACTIONS_PER_TOOL,
  TOOL_NAME_PATTERN,
  type FieldIssue,
} from '../protocol/index.js';
import type { ToolContext, ToolStartContext } from './context.js';
import { RefCounted } from './ref-counted.js';
import {
  defineCallable,
  ToolDefinitionError,
  type ToolAnnotationsInput,
  type ToolDefinition,
  type ToolDefinitionInput,
} from './define.js';

/**
 * A tool with several named actions (ADR 0092), after the Colony document's tools whose
 * capabilities are separate calls (`run_em_fdtd`, `compute_shielding_factor`). Each action
 * is a callable of its own, `tool.action`, with its own schemas, description, annotations
 * and confirmation; it shares the tool's version, tags, backend, config section, hooks and
 * everything else the tool declares.
 */

/** What an action declares; the rest comes from its tool. */
export interface ActionInput<I extends z.ZodType, O extends z.ZodType, C = unknown> {
  /** Written for an LLM and an operator: what this action does, an example, what it refuses. */
  description: string;
  /** @default `<tool title>: <action>` */
  title?: string;
  input: I;
  output: O;
  /** MCP's behaviour hints for this action (`destructive`, `idempotent` follow `readOnly`). */
  annotations: ToolAnnotationsInput;
  /** @default the tool's */
  hitl?: 'autonomous' | 'confirm';
  /** @default the tool's */
  capabilities?: string[];
  /** @default the tool's, else from this action's annotations (see `defineTool`) */
  outputTrust?: 'trusted' | 'untrusted';
  /** @default the tool's */
  readsPrivate?: boolean;
  /** @default the tool's */
  timeoutMs?: number;
  handler: (input: z.output<I>, ctx: ToolContext<C>) => Promise<z.input<O>> | z.input<O>;
}

/** An action as {@link ActionInput} with its types erased, as a tool's `actions` holds it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyAction<C = unknown> = ActionInput<any, any, C>;

/** Types one action's handler from its own schemas: `actions: { read: action({...}) }`. */
export function action<I extends z.ZodType, O extends z.ZodType, C = unknown>(
  a: ActionInput<I, O, C>,
): ActionInput<I, O, C> {
  return a;
}

/** The fields a tool with actions declares for all of them. */
export type ActionToolInput<C extends z.ZodType = z.ZodUnknown> = Omit<
  ToolDefinitionInput<z.ZodType, z.ZodType, C>,
  'input' | 'output' | 'annotations' | 'handler'
> & {
  /** One or more actions by name (each `^[a-z][a-z0-9_]*$`; `tool.action` at most 64). */
  actions: Readonly<Record<string, AnyAction<z.output<C>>>>;
};

/** A checked tool with actions: each one a complete callable definition of its own. */
export interface ActionToolDefinition {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly configSection: string;
  /** In declaration order; each spec named `tool.action`. */
  readonly actions: readonly ToolDefinition[];
}

/** What a worker serves: a one-action tool, or a tool with actions. */
export type AnyToolDefinition = ToolDefinition | ActionToolDefinition;

/** The callables a tool brings: itself, or each of its actions. */
export function callablesOf(tool: AnyToolDefinition): readonly ToolDefinition[] {
  return 'spec' in tool ? [tool] : tool.actions;
}

/** The most actions one tool may have (each is a service instance and a subject). */
export const MAX_ACTIONS = MAX_ACTIONS_PER_TOOL;

/**
 * The hooks of a tool run once for the tool, not once per action: `start` before the first
 * action takes calls (with that action's context), `stop` after the last one stopped.
 */
function sharedHooks<C>(def: {
  start?: (ctx: ToolStartContext<C>) => Promise<void> | void;
  stop?: () => Promise<void> | void;
}): Pick<ToolDefinitionInput<z.ZodType, z.ZodType>, 'start' | 'stop'> {
  if (def.start === undefined && def.stop === undefined) return {};
  // one key: the tool's start, run by its first action and tried again after a failure
  const started = new RefCounted<'tool', Promise<void>>(() => def.stop?.());
  return {
    start: async (ctx: ToolStartContext<unknown>) => {
      await started.acquire('tool', async () => def.start?.(ctx as ToolStartContext<C>));
    },
    // the last action stopped: a later start runs the tool's start again
    stop: () => started.release(),
  };
}

/** Refuses a tool's actions block that cannot become callables; names every fault. */
function actionIssues(tool: string, actions: unknown): FieldIssue[] {
  if (typeof actions !== 'object' || actions === null || Array.isArray(actions)) {
    return [{ path: 'actions', message: 'expected a map of action names to actions' }];
  }
  const names = Object.keys(actions);
  const out: FieldIssue[] = [];
  if (names.length === 0) out.push({ path: 'actions', message: 'expected at least one action' });
  if (names.length > MAX_ACTIONS) {
    out.push({ path: 'actions', message: `at most ${MAX_ACTIONS} actions, not ${names.length}` });
  }
  for (const name of names) {
    if (!TOOL_NAME_PATTERN.test(name)) {
      out.push({ path: `actions.${name}`, message: 'an action name matches ^[a-z][a-z0-9_]*$' });
    } else if (actionName(tool, name).length > MAX_CALLABLE_NAME_CHARS) {
      out.push({
        path: `actions.${name}`,
        message: `'${actionName(tool, name)}' is longer than ${MAX_CALLABLE_NAME_CHARS} characters`,
      });
    }
  }
  return out;
}

/** Declares a tool with actions (what `defineTool` does when given `actions`). */
export function defineActionTool<C extends z.ZodType = z.ZodUnknown>(
  def: ActionToolInput<C>,
): ActionToolDefinition {
  const name = typeof def.name === 'string' ? def.name : String(def.name);
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw new ToolDefinitionError(name, [
      { path: 'name', message: 'a tool name matches ^[a-z][a-z0-9_]{0,63}$' },
    ]);
  }
  const issues = actionIssues(name, def.actions);
  if (issues.length > 0) throw new ToolDefinitionError(name, issues);
  const { actions, start, stop, ...shared } = def;
  const hooks = sharedHooks({ start, stop });
  const configSection = def.configSection ?? name;
  const defined = Object.entries(actions).map(([action, a]) =>
    defineCallable(
      {
        ...shared,
        ...hooks,
        ...a,
        name: actionName(name, action),
        title: a.title ?? `${def.title ?? name}: ${action}`,
        capabilities: a.capabilities ?? def.capabilities ?? [],
        configSection,
      },
      { action: true },
    ),
  );
  return Object.freeze({
    name,
    version: def.version,
    description: def.description,
    configSection,
    actions: Object.freeze(defined),
  });
}
