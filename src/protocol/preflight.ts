import { z } from 'zod';
import { CallableNameSchema } from './names.js';
import { ExecutionLocalitySchema, ResourceRequirementsSchema } from './toolspec.js';

const PreflightCheckSchema = z.object({
  name: z.string().min(1).max(100),
  ok: z.boolean(),
  detail: z.string().max(2000).optional(),
});
export type PreflightCheck = z.infer<typeof PreflightCheckSchema>;

/** Reply on `caesar.preflight.tool.<tool>`: is the backend configured and reachable? */
export const PreflightReplySchema = z.object({
  v: z.literal(1),
  tool: CallableNameSchema,
  ok: z.boolean(),
  warnings: z.array(z.string().max(2000)).max(50),
  checks: z.array(PreflightCheckSchema).max(50),
  execution_locality: ExecutionLocalitySchema,
  resource_requirements: ResourceRequirementsSchema,
  worker: z.object({ id: z.string(), host: z.string() }),
});
export type PreflightReply = z.infer<typeof PreflightReplySchema>;
