import { z } from 'zod';

/** Tool names: lower-case, start with a letter, at most 64 characters. */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** Instance ids are NUIDs (or any token a worker picks): safe as a single subject token. */
export const INSTANCE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const ToolNameSchema = z
  .string()
  .regex(TOOL_NAME_PATTERN, 'tool names match ^[a-z][a-z0-9_]{0,63}$');

export const InstanceIdSchema = z.string().regex(INSTANCE_ID_PATTERN);
