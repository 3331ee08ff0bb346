import { z } from 'zod';
import { CallableNameSchema, InstanceIdSchema } from './names.js';

/** Published on `caesar.registry.hello` when a tool instance starts serving. */
export const HelloSchema = z.object({
  v: z.literal(1),
  tool: CallableNameSchema,
  /** ADR-32 service name (`caesar-<tool>`; an action's is its tool's). */
  service: z.string().min(1),
  /** ADR-32 service instance id. */
  instance_id: InstanceIdSchema,
  host: z.string().min(1).max(255),
  version: z.string().min(1).max(64),
  spec_sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type Hello = z.infer<typeof HelloSchema>;

/** Published on `caesar.registry.bye` when a tool instance stops gracefully. */
export const ByeSchema = z.object({
  v: z.literal(1),
  tool: CallableNameSchema,
  instance_id: InstanceIdSchema,
  host: z.string().min(1).max(255),
  reason: z.string().max(200).optional(),
});
export type Bye = z.infer<typeof ByeSchema>;
