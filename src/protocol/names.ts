import { z } from 'zod';

/** Tool names: lower-case, start with a letter, at most 64 characters. */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** Instance ids are NUIDs (or any token a worker picks): safe as a single subject token. */
export const INSTANCE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const ToolNameSchema = z
  .string()
  .regex(TOOL_NAME_PATTERN, 'tool names match ^[a-z][a-z0-9_]{0,63}$');

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
