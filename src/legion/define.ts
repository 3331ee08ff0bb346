import { z } from 'zod';
import { errorClass } from '../errors/index.js';
import {
  ACTION_SEPARATOR,
  specDomain,
  specInterruptibility,
  specOutputTrust,
  fieldIssuesOf,
  specSha256,
  summariseFieldIssues,
  ToolNameSchema,
  ToolSpecSchema,
  type FieldIssue,
  type Headless,
  type Interruptibility,
  type JobSpec,
  type ResourceRequirements,
  type ToolAnnotations,
  type ToolSpec,
} from '../protocol/index.js';
import { deepFreeze } from '../text/index.js';
import type { PreflightResult, ToolContext, ToolStartContext } from './context.js';
import { resolveDocumentNames, type DocumentNamed } from './spec-names.js';

/**
 * What a tool author writes. Everything on the wire is derived from it. The fields the Colony
 * document names otherwise (`executionLocality`, `resourceRequirements`, `costModel`,
 * `licensingNotes`, `hitl`, `determinism`, `interruptibility`) are in {@link DocumentNamed}.
 */
export interface ToolDefinitionInput<
  I extends z.ZodType,
  O extends z.ZodType,
  C extends z.ZodType = z.ZodUnknown,
> extends DocumentNamed {
  name: string;
  version: string;
  /** @default the name */
  title?: string;
  /** Written for an LLM and an operator: what it does, an example, what it refuses. */
  description: string;
  /** @default ['tool'] ('tool' is always added) */
  tags?: string[];
  /**
   * The area the tool belongs to, such as `home`, `calendar`, `web` or `math` (a tag's form).
   * @default the first tag other than `tool`, else `general`
   */
  domain?: string;
  /**
   * What the tool talks to: `caldav`, `home_assistant`, `mathjs`; alternatives joined by `|`
   * (`searxng|brave|tavily`). @default none
   */
  backend?: string;
  /**
   * Short verbs or nouns for what it can do: `search`, `read_calendar`, `switch_devices`
   * (at most 16, each `^[a-z][a-z0-9_]{0,31}$`). @default []
   */
  capabilities?: string[];
  /** Documentation URLs, http or https (at most 5, each at most 500 characters). @default [] */
  references?: string[];
  /**
   * Anything else worth saying, flat: at most 16 keys (`^[a-z][a-z0-9_]{0,31}$`), each a
   * boolean, a finite number or a string of at most 200 characters. @default {}
   */
  extra?: Record<string, string | number | boolean>;
  input: I;
  output: O;
  /**
   * MCP's behaviour hints. `destructive` and `idempotent` follow from `readOnly` unless
   * given: a read-only tool changes nothing and may be called again (`destructive: false`,
   * `idempotent: true`); any other tool is taken as destructive and not idempotent, MCP's
   * defaults, until it says otherwise.
   */
  annotations: ToolAnnotationsInput;
  /** An SPDX identifier or a short name. @default 'Apache-2.0' */
  licensing?: string;
  /**
   * How far it runs without a person at a screen: `native`, `cli_only`, `partial`,
   * `gui_primary` or `none`. @default 'native'
   */
  headless?: Headless;
  /**
   * What the tool returns: `trusted` only when the output is computed from the call's own
   * input and nothing else (the calculator's), so a model may take it as it takes the
   * operator's words; `untrusted` when it carries text from outside (web pages, calendar
   * invitations, device names), which may hold instructions. The spec always carries it.
   * @default 'trusted' for a closed-world tool without network (`annotations.openWorld` and
   *   `resourceRequirements.network` false), else 'untrusted' (`specOutputTrust`)
   */
  outputTrust?: 'trusted' | 'untrusted';
  /**
   * The output holds the operator's private data (a calendar, the home's entities and
   * states), which must not leave the house unasked. The spec always carries it.
   * @default false
   */
  readsPrivate?: boolean;
  /**
   * How the tool runs as a job (ADR 0098): `delivery` says what happens when the worker
   * running it dies: `at_most_once` fails the job, `at_least_once` runs it again on another
   * capable worker. A `remote_job` tool, or one whose typical call outlasts the brain's call
   * deadline, is a job. @default { delivery: 'at_most_once' } when it is one
   */
  job?: JobSpec;
  /** Upper bound on one call; the envelope deadline is capped by it. @default 10000 */
  timeoutMs?: number;
  /** Calls run at once per instance. @default 4 */
  maxConcurrency?: number;
  /** Calls that may wait per instance before `overloaded`. @default 64 */
  maxQueue?: number;
  /** Schema of this tool's config section; checked when the worker starts. */
  config?: C;
  /**
   * The config section the tool reads: `tools.<configSection>` in caesar.yaml, or a top-level
   * section such as `ha` (see `settingName`). Tools that share a backend share a section
   * (`calendar` for calendar tools, `ha` for Home Assistant ones). @default the tool's name
   */
  configSection?: string;
  /** Runs once before the tool takes calls (open pools, warm caches). */
  start?: (ctx: ToolStartContext<z.output<C>>) => Promise<void> | void;
  /** Runs once after the last call finished or was cut off. */
  stop?: () => Promise<void> | void;
  handler: (input: z.output<I>, ctx: ToolContext<z.output<C>>) => Promise<z.input<O>> | z.input<O>;
  /** Is the backend configured and reachable? @default ok with no checks */
  preflight?: (ctx: ToolStartContext<z.output<C>>) => Promise<PreflightResult> | PreflightResult;
}

/**
 * A checked, frozen tool: its spec (with JSON Schemas) and sha256 are computed once. The spec
 * is frozen to its last leaf (ADR 0089): `tool.spec.name = 'x'` throws a TypeError.
 */
export interface ToolDefinition<
  I extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
  C extends z.ZodType = z.ZodType,
> extends Readonly<ToolDefinitionInput<I, O, C>> {
  readonly spec: ToolSpec;
  readonly specSha256: string;
  /** The config section the tool reads, its `configSection` or its name. */
  readonly configSection: string;
}

/** A declaration that cannot become a valid ToolSpec; names every field at fault. */
export const ToolDefinitionError = errorClass(
  'tool_definition_invalid',
  (tool: string, issues: FieldIssue[]) => {
    const listed = issues.map((i) => ({ path: i.path || '(root)', message: i.message }));
    return {
      params: { tool, issues: summariseFieldIssues(listed) },
      fields: { issues },
      options: { tool },
    };
  },
);
export type ToolDefinitionError = InstanceType<typeof ToolDefinitionError>;

function jsonSchema(
  schema: z.ZodType,
  io: 'input' | 'output',
  tool: string,
): Record<string, unknown> {
  try {
    return z.toJSONSchema(schema, { target: 'draft-2020-12', io });
  } catch (err) {
    throw new ToolDefinitionError(tool, [
      { path: io, message: `schema cannot be expressed as JSON Schema: ${(err as Error).message}` },
    ]);
  }
}

/** {@link ToolAnnotations} as a definition writes them: `destructive`, `idempotent` optional. */
export type ToolAnnotationsInput = Pick<ToolAnnotations, 'readOnly' | 'openWorld'> &
  Partial<Pick<ToolAnnotations, 'destructive' | 'idempotent'>>;

/**
 * The four hints, `destructive` and `idempotent` taken from `readOnly` where not given. A
 * declaration not checked by the compiler may lack them: then undefined, which the spec's
 * schema refuses by name.
 */
function annotationsOf(a: ToolAnnotationsInput | undefined): ToolAnnotations | undefined {
  if (a === undefined) return undefined;
  return {
    readOnly: a.readOnly,
    destructive: a.destructive ?? !a.readOnly,
    idempotent: a.idempotent ?? a.readOnly,
    openWorld: a.openWorld,
  };
}

/**
 * Declares one callable: a one-action tool, or (with `action`, from `defineActionTool`) one
 * action `tool.action` of a tool with several. The input/output JSON Schemas the LLM sees,
 * the worker's validation, the discovery metadata and the docs all come from this one
 * declaration. Throws {@link ToolDefinitionError} at once when a field is missing or wrong.
 * Tool authors call `defineTool` (`tool.ts`).
 */
export function defineCallable<
  I extends z.ZodType,
  O extends z.ZodType,
  C extends z.ZodType = z.ZodUnknown,
>(def: ToolDefinitionInput<I, O, C>, { action = false } = {}): ToolDefinition<I, O, C> {
  const name = typeof def.name === 'string' ? def.name : String(def.name);
  if (!action && name.includes(ACTION_SEPARATOR)) {
    throw new ToolDefinitionError(name, [
      {
        path: 'name',
        message: `a tool name has no '${ACTION_SEPARATOR}': declare its actions under \`actions\` instead`,
      },
    ]);
  }
  if (!(def.input instanceof z.ZodType) || !(def.output instanceof z.ZodType)) {
    throw new ToolDefinitionError(name, [{ path: 'input/output', message: 'must be zod schemas' }]);
  }
  if (typeof def.handler !== 'function') {
    throw new ToolDefinitionError(name, [{ path: 'handler', message: 'must be a function' }]);
  }
  const tags = [...new Set(['tool', ...(def.tags ?? [])])];
  const named: FieldIssue[] = [];
  const doc = resolveDocumentNames(def, named);
  if (named.length > 0) throw new ToolDefinitionError(name, named);
  // undefined only for a declaration the compiler did not check; the spec's schema refuses it
  const annotations = annotationsOf(def.annotations) as ToolAnnotations;
  const requirements = doc.resourceRequirements as ResourceRequirements;
  const candidate = {
    name: def.name,
    version: def.version,
    title: def.title ?? def.name,
    description: def.description,
    tags,
    domain: def.domain ?? specDomain({ tags }),
    ...(def.backend === undefined ? {} : { backend: def.backend }),
    capabilities: Array.isArray(def.capabilities)
      ? [...new Set(def.capabilities)]
      : (def.capabilities ?? []),
    interruptibility: specInterruptibility({
      annotations,
      interruptibility: doc.interruptibility as Interruptibility | undefined,
    }),
    references: def.references ?? [],
    extra: def.extra ?? {},
    input_schema: jsonSchema(def.input, 'input', name),
    output_schema: jsonSchema(def.output, 'output', name),
    annotations,
    determinism: doc.determinism ?? (annotations?.openWorld ? 'nondeterministic' : 'deterministic'),
    execution_locality: doc.executionLocality,
    resource_requirements: requirements,
    cost_model: doc.costModel ?? { kind: 'free' },
    licensing: def.licensing ?? 'Apache-2.0',
    licensing_notes: doc.licensingNotes ?? '',
    headless: def.headless ?? 'native',
    hitl: doc.hitl ?? 'autonomous',
    output_trust:
      def.outputTrust ?? specOutputTrust({ annotations, resource_requirements: requirements }),
    reads_private: def.readsPrivate ?? false,
    ...(def.job === undefined ? {} : { job: { delivery: def.job.delivery } }),
    timeout_ms: def.timeoutMs ?? 10_000,
    max_concurrency: def.maxConcurrency ?? 4,
    max_queue: def.maxQueue ?? 64,
  };
  const parsed = ToolSpecSchema.safeParse(candidate);
  if (!parsed.success) {
    throw new ToolDefinitionError(name, fieldIssuesOf(parsed.error));
  }
  // a copy of its own (a module's JSON Schema object stays the author's), frozen to the leaves
  const spec = deepFreeze(structuredClone(parsed.data));
  const expected = spec.resource_requirements.expected_wall_clock_ms;
  if (expected !== undefined && expected > spec.timeout_ms) {
    throw new ToolDefinitionError(name, [
      {
        path: 'resource_requirements.expected_wall_clock_ms',
        message: `a typical call (${expected} ms) cannot take longer than timeoutMs (${spec.timeout_ms} ms)`,
      },
    ]);
  }
  const configSection = def.configSection ?? spec.name;
  if (!ToolNameSchema.safeParse(configSection).success) {
    throw new ToolDefinitionError(name, [
      { path: 'configSection', message: 'expected a section name: ^[a-z][a-z0-9_]{0,63}$' },
    ]);
  }
  return Object.freeze({ ...def, spec, specSha256: specSha256(spec), configSection });
}
