import { z } from 'zod';
import { canonicalJson, sha256Hex } from './canonical.js';
import { CallableNameSchema } from './names.js';

/** MCP-compatible behaviour hints. Shown to planners and operators, never trusted for security. */
const ToolAnnotationsSchema = z.strictObject({
  readOnly: z.boolean(),
  destructive: z.boolean(),
  idempotent: z.boolean(),
  openWorld: z.boolean(),
});
export type ToolAnnotations = z.infer<typeof ToolAnnotationsSchema>;

/**
 * Where a call runs: `local` (the worker's host), `lan` (a device at home), `remote_api` (a
 * service on the internet), `remote_job` (started as a job on another, capable host and
 * awaited; issue 33 brings the job runtime), `sandbox` (a command-line program run on the
 * worker's host under bubblewrap with kernel-enforced limits, ADR 0097).
 */
export const ExecutionLocalitySchema = z.enum([
  'local',
  'lan',
  'remote_api',
  'remote_job',
  'sandbox',
]);
export type ExecutionLocality = z.infer<typeof ExecutionLocalitySchema>;

/**
 * How far the tool runs without a person at a screen (the Colony document's tiers): `native`
 * (an API or program, no GUI), `cli_only`, `partial` (GUI steps remain), `gui_primary` (a
 * person runs it; the call prepares), `none`.
 */
export const HeadlessSchema = z.enum(['native', 'cli_only', 'partial', 'gui_primary', 'none']);
export type Headless = z.infer<typeof HeadlessSchema>;

/** The most GPUs one tool may ask for (docs/protocol.md). */
const MAX_GPUS = 64;

/** Tags, and the domains taken from them: `home`, `web`, `home_assistant`. */
const TOOL_TAG_PATTERN = /^[a-z0-9_-]{1,32}$/;
export const ToolTagSchema = z
  .string()
  .regex(TOOL_TAG_PATTERN, 'expected a tag: 1-32 of a-z, 0-9, _ or -');

/** A GPU the tool needs (or can use, when `required` is false). */
const GpuRequirementSchema = z.strictObject({
  required: z.boolean(),
  /** How many GPUs (`defineTool` fills 1). */
  count: z.number().int().min(1).max(MAX_GPUS).optional(),
  /** Memory per GPU (the Colony document's `memory_gb`). */
  min_vram_gb: z.number().positive().max(1024).optional(),
  /** `cuda`, `rocm`, `metal`, `vulkan`, ... */
  kind: z
    .string()
    .regex(/^[a-z0-9_-]{1,32}$/, 'expected a GPU kind such as cuda, rocm or metal')
    .optional(),
});

export const ResourceRequirementsSchema = z.strictObject({
  cpu: z.enum(['low', 'medium', 'high']),
  memory_mb: z.number().int().positive(),
  network: z.boolean(),
  /** Host minimums, for placing a worker; absent: no minimum. */
  min_vcpus: z.number().positive().max(1024).optional(),
  min_memory_gb: z.number().positive().max(4096).optional(),
  gpu: GpuRequirementSchema.optional(),
  /** How long a typical call takes (at most the spec's `timeout_ms`). */
  expected_wall_clock_ms: z.number().int().positive().max(600_000).optional(),
});
export type ResourceRequirements = z.infer<typeof ResourceRequirementsSchema>;

/**
 * How a job tool's work is delivered when the worker running it dies (ADR 0098):
 * `at_most_once` (taken off the queue when a worker starts it; a lost worker fails the job,
 * it never runs twice) or `at_least_once` (stays queued until it ends; after the worker's
 * heartbeat lapses another capable worker runs it again, so it must be safe to repeat).
 */
export const JobDeliverySchema = z.enum(['at_most_once', 'at_least_once']);
export type JobDelivery = z.infer<typeof JobDeliverySchema>;

/** A tool's job settings (ADR 0098); absent: `at_most_once`. */
export const JobSpecSchema = z.strictObject({ delivery: JobDeliverySchema });
export type JobSpec = z.infer<typeof JobSpecSchema>;

const CostModelSchema = z.strictObject({
  kind: z.enum(['free', 'metered']),
  /** Free text such as "1 API request per call". */
  unit: z.string().max(200).optional(),
});

/** `safe`: a call may be cut off at any time; `unsafe`: its side effects may be half done. */
const InterruptibilitySchema = z.enum(['safe', 'unsafe']);
export type Interruptibility = z.infer<typeof InterruptibilitySchema>;

/** Bounds of the descriptive fields; docs/protocol.md lists them. */
const SPEC_LIMITS = {
  capabilities: 16,
  references: 5,
  referenceChars: 500,
  extraEntries: 16,
  extraStringChars: 200,
  backendAlternatives: 8,
  licensingNotesChars: 500,
} as const;

const WORD = /^[a-z][a-z0-9_]{0,31}$/;
const BACKEND_NAME = '[a-z0-9][a-z0-9_.-]{0,31}';
const BACKEND_PATTERN = new RegExp(
  `^${BACKEND_NAME}(?:\\|${BACKEND_NAME}){0,${SPEC_LIMITS.backendAlternatives - 1}}$`,
);

const unique = (list: readonly string[]) => new Set(list).size === list.length;

const ExtraSchema = z
  .record(
    z.string().regex(WORD, 'expected a key: a-z first, then a-z, 0-9 or _, at most 32'),
    z.union([z.string().max(SPEC_LIMITS.extraStringChars), z.number(), z.boolean()]),
  )
  .refine(
    (m) => Object.keys(m).length <= SPEC_LIMITS.extraEntries,
    `at most ${SPEC_LIMITS.extraEntries} entries`,
  );

/** A JSON Schema document (draft 2020-12), derived from the tool's zod schema. */
const JsonSchemaObject = z.record(z.string(), z.unknown());

/**
 * The wire form of a tool's declaration, carried in its ADR-32 service metadata. Derived
 * from `defineTool()`; nobody writes it by hand. The fields from `domain` to `extra`, and
 * `licensing_notes`, `headless` and a GPU's `count` (ADR 0089), came later than protocol v1's
 * first workers: they are optional here, so an older spec stays valid (and keeps its
 * sha256), while `defineTool` always fills them in.
 */
export const ToolSpecSchema = z.strictObject({
  /** The callable's name: a tool's, or an action's `tool.action` (ADR 0092). */
  name: CallableNameSchema,
  version: z.string().regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/, 'semver such as 1.2.0'),
  title: z.string().min(1).max(100),
  description: z.string().min(1).max(2000),
  tags: z
    .array(ToolTagSchema)
    .max(32)
    .refine((t) => t.includes('tool'), "tags must include 'tool'"),
  /** The area the tool belongs to: `home`, `calendar`, `web`, `math`, `general`. */
  domain: ToolTagSchema.optional(),
  /** What it talks to: `caldav`, `home_assistant`, alternatives as `searxng|brave|tavily`. */
  backend: z
    .string()
    .regex(BACKEND_PATTERN, 'expected names of a-z, 0-9, _, . or -, several joined by |')
    .optional(),
  /** Short verbs or nouns: `search`, `read_calendar`, `switch_devices`. */
  capabilities: z
    .array(z.string().regex(WORD, 'expected a-z first, then a-z, 0-9 or _, at most 32'))
    .max(SPEC_LIMITS.capabilities)
    .refine(unique, 'capabilities must not repeat')
    .optional(),
  interruptibility: InterruptibilitySchema.optional(),
  /** Documentation URLs (http or https). */
  references: z
    .array(
      z
        .url({ protocol: /^https?$/, error: 'expected an http or https URL' })
        .max(SPEC_LIMITS.referenceChars),
    )
    .max(SPEC_LIMITS.references)
    .optional(),
  /** Anything else worth saying, as a small flat map. */
  extra: ExtraSchema.optional(),
  input_schema: JsonSchemaObject,
  output_schema: JsonSchemaObject,
  annotations: ToolAnnotationsSchema,
  determinism: z.enum(['deterministic', 'nondeterministic']),
  execution_locality: ExecutionLocalitySchema,
  resource_requirements: ResourceRequirementsSchema,
  cost_model: CostModelSchema,
  licensing: z.string().min(1).max(200),
  /** What `licensing` does not say: attribution, restrictions, terms of the backend's API. */
  licensing_notes: z.string().max(SPEC_LIMITS.licensingNotesChars).optional(),
  /** How far it runs without a person at a screen. Absent: `native`. */
  headless: HeadlessSchema.optional(),
  /** `confirm`: the tool's author asks for a human in the loop (policy may demand it anyway). */
  hitl: z.enum(['autonomous', 'confirm']),
  /**
   * Whether a model may take what the tool returns as the operator's own words (`trusted`:
   * computed locally from the call's input, like the calculator's) or as text from outside
   * that may carry instructions (`untrusted`). Absent: see {@link specOutputTrust}.
   */
  output_trust: z.enum(['trusted', 'untrusted']).optional(),
  /** The tool returns the operator's private data (a calendar, the home's entities). @default false */
  reads_private: z.boolean().optional(),
  /** How the tool runs as a job (ADR 0098); absent: `at_most_once` when it is one. */
  job: JobSpecSchema.optional(),
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

/** A spec's domain: its own, else its first tag other than `tool`, else `general`. */
export function specDomain(spec: Pick<ToolSpec, 'tags' | 'domain'>): string {
  return (
    spec.domain ?? spec.tags.find((t) => t !== 'tool' && TOOL_TAG_PATTERN.test(t)) ?? 'general'
  );
}

/**
 * A spec's output trust: its own, else `trusted` only for a closed-world tool that uses no
 * network (`annotations.openWorld: false`, `resource_requirements.network: false`), else
 * `untrusted` (ADR 0065).
 */
export function specOutputTrust(
  spec: Pick<ToolSpec, 'annotations' | 'output_trust' | 'resource_requirements'>,
): 'trusted' | 'untrusted' {
  if (spec.output_trust !== undefined) return spec.output_trust;
  const closed = spec.annotations?.openWorld === false;
  return closed && spec.resource_requirements?.network === false ? 'trusted' : 'untrusted';
}

/**
 * A spec's interruptibility: its own, else `safe` for read-only tools and `unsafe` otherwise
 * (also used on declarations not yet checked, whose annotations may be missing).
 */
export function specInterruptibility(
  spec: Pick<ToolSpec, 'annotations' | 'interruptibility'>,
): Interruptibility {
  return spec.interruptibility ?? (spec.annotations?.readOnly === true ? 'safe' : 'unsafe');
}

/**
 * Which tools to show by tag (`GET /v1/tools?include_tags=…&exclude_tags=…`, the config's
 * `llm.include_tags` / `llm.exclude_tags`), as Colony's tool-capabilities document specifies
 * them (ADR 0088): `{tool}` means every tool, `{tool, hpc}` the HPC tools only.
 */
export interface TagFilter {
  /** Only tools carrying every one of these (AND); empty or absent: every tool. */
  readonly includeTags?: readonly string[];
  /** Never tools carrying any of these (wins over `includeTags`). */
  readonly excludeTags?: readonly string[];
}

/**
 * Does a tool with `tags` pass `filter`? `tool` is merged into every tool's tags, so a spec
 * from the wire is judged as if it carried it. The one tag filter: the HTTP list, the
 * planner's offered set and the catalog all call this.
 */
export function matchesTags(tags: readonly string[], filter: TagFilter = {}): boolean {
  const { includeTags = [], excludeTags = [] } = filter;
  const has = (tag: string) => tag === 'tool' || tags.includes(tag);
  if (excludeTags.some(has)) return false;
  return includeTags.every(has);
}
