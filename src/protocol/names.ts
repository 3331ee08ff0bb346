import { z } from 'zod';

/** Tool names: lower-case, start with a letter, at most 64 characters. */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** Instance ids are NUIDs (or any token a worker picks): safe as a single subject token. */
export const INSTANCE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const ToolNameSchema = z
  .string()
  .regex(TOOL_NAME_PATTERN, 'tool names match ^[a-z][a-z0-9_]{0,63}$');

/** How an action's full name joins its tool's name and its own: `home_assistant.entities`. */
export const ACTION_SEPARATOR = '.';

/**
 * The most actions one tool may have: each is a service instance, a subject and, on the
 * worker's connection, one more answer to each discovery sweep (ADR 0092).
 */
export const MAX_ACTIONS_PER_TOOL = 16;

/** The most characters a callable name may have, so a model's function name can carry it. */
export const MAX_CALLABLE_NAME_CHARS = 64;

/**
 * What a call names (ADR 0092): a one-action tool's name (`calculator`), or an action's full
 * name `<tool>.<action>` (`home_assistant.call_service`), each part a tool name, together at
 * most 64 characters. The subjects, the wire, the registry, the policy and the audit log all
 * carry it.
 */
export const CALLABLE_NAME_PATTERN = /^(?=[a-z0-9_.]{1,64}$)[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)?$/;

export const CallableNameSchema = z
  .string()
  .regex(
    CALLABLE_NAME_PATTERN,
    'expected a tool name (^[a-z][a-z0-9_]*$) or an action tool.action, at most 64 characters',
  );

/** An action's full name: `actionName('home_assistant', 'entities')`. */
export function actionName(tool: string, action: string): string {
  return `${tool}${ACTION_SEPARATOR}${action}`;
}

/**
 * The tool part and the action part of a callable name (`action` undefined for a one-action
 * tool). Only for names already checked against {@link CALLABLE_NAME_PATTERN}.
 */
export function splitCallable(name: string): { tool: string; action?: string } {
  const at = name.indexOf(ACTION_SEPARATOR);
  return at < 0 ? { tool: name } : { tool: name.slice(0, at), action: name.slice(at + 1) };
}

export const InstanceIdSchema = z.string().regex(INSTANCE_ID_PATTERN);

/**
 * The valid tool name closest to `name`, for a "try …" hint: lower case, every other
 * character `_`, a leading non-letter prefixed with `tool_`, at most 64 characters.
 */
export function suggestToolName(name: string): string {
  let fixed = name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!/^[a-z]/.test(fixed)) fixed = `tool_${fixed}`.replace(/_+$/, '');
  return fixed.slice(0, 64);
}
