import { z } from 'zod';
import { canonicalJson, sha256Hex } from './canonical.js';
import { ToolNameSchema } from './names.js';

/** MCP-compatible behaviour hints. Shown to planners and operators, never trusted for security. */
export const ToolAnnotationsSchema = z.strictObject({
  readOnly: z.boolean(),
  destructive: z.boolean(),
  idempotent: z.boolean(),
  openWorld: z.boolean(),
});
export type ToolAnnotations = z.infer<typeof ToolAnnotationsSchema>;

export const ExecutionLocalitySchema = z.enum(['local', 'lan', 'remote_api']);
export type ExecutionLocality = z.infer<typeof ExecutionLocalitySchema>;

export const ResourceRequirementsSchema = z.strictObject({
  cpu: z.enum(['low', 'medium', 'high']),
  memory_mb: z.number().int().positive(),
  network: z.boolean(),
});
export type ResourceRequirements = z.infer<typeof ResourceRequirementsSchema>;

export const CostModelSchema = z.strictObject({
  kind: z.enum(['free', 'metered']),
  /** Free text such as "1 API request per call". */
  unit: z.string().max(200).optional(),
});

/** A JSON Schema document (draft 2020-12), derived from the tool's zod schema. */
export const JsonSchemaObject = z.record(z.string(), z.unknown());

/**
 * The wire form of a tool's declaration, carried in its ADR-32 service metadata. Derived
 * from `defineTool()`; nobody writes it by hand.
 */
export const ToolSpecSchema = z.strictObject({
  name: ToolNameSchema,
  version: z.string().regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/, 'semver such as 1.2.0'),
  title: z.string().min(1).max(100),
  description: z.string().min(1).max(2000),
  tags: z
    .array(z.string().regex(/^[a-z0-9_-]{1,32}$/))
    .max(32)
    .refine((t) => t.includes('tool'), "tags must include 'tool'"),
  input_schema: JsonSchemaObject,
  output_schema: JsonSchemaObject,
  annotations: ToolAnnotationsSchema,
  determinism: z.enum(['deterministic', 'nondeterministic']),
  execution_locality: ExecutionLocalitySchema,
  resource_requirements: ResourceRequirementsSchema,
  cost_model: CostModelSchema,
  licensing: z.string().min(1).max(200),
  /** `confirm`: the tool's author asks for a human in the loop (policy may demand it anyway). */
  hitl: z.enum(['autonomous', 'confirm']),
  /** Upper bound on one call; the envelope deadline is capped by it. */
  timeout_ms: z.number().int().positive().max(600_000),
  /** Calls run at once per instance; more wait in a bounded queue. */
  max_concurrency: z.number().int().positive().max(1024),
  /** Calls that may wait per instance before `overloaded`. */
  max_queue: z.number().int().nonnegative().max(100_000),
});
export type ToolSpec = z.infer<typeof ToolSpecSchema>;

/** sha256 of the canonical JSON of a spec: equal specs hash equal on every host. */
export function specSha256(spec: ToolSpec): string {
  return sha256Hex(canonicalJson(spec));
}
