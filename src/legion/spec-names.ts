import type {
  ExecutionLocality,
  FieldIssue,
  Interruptibility,
  ResourceRequirements,
} from '../protocol/index.js';
import { canonicalJson } from '../text/index.js';

/**
 * The Colony tool-capabilities document's names for a definition's fields (ADR 0089). A
 * definition may use them instead of `defineTool`'s own; given both, they must agree, and a
 * disagreement is refused naming both. docs/legion.md has the table.
 */

/** Colony's `hitl_frequency` tiers; any but `autonomous` puts a human before each call. */
const HITL_FREQUENCIES = [
  'autonomous',
  'review_milestones',
  'approval_gates',
  'co_pilot',
  'human_primary',
] as const;
export type HitlFrequency = (typeof HITL_FREQUENCIES)[number];

/** A GPU as a definition may write it: CAESAR's names or the document's (`memory_gb`). */
export interface GpuRequirementInput {
  /** `false`: the tool uses a GPU when there is one. @default true */
  required?: boolean;
  /** @default 1 */
  count?: number;
  /** Memory per GPU, in GB; the document calls it `memory_gb`. */
  min_vram_gb?: number;
  memory_gb?: number;
  kind?: string;
}

/** {@link ResourceRequirements} as a definition may write them (the document's names too). */
export type ResourceRequirementsInput = Omit<ResourceRequirements, 'gpu'> & {
  gpu?: GpuRequirementInput;
  /** The document's wall-clock estimate, in seconds: `expected_wall_clock_ms` / 1000. */
  expected_wallclock_seconds?: number;
};

/** The fields of a definition it may give under either name, in either's values. */
export interface DocumentNamed {
  /**
   * Required, here or as `execution_locality`: `local`, `lan`, `remote_api` or `remote_job`
   * (the call runs as a job on a host that meets `resourceRequirements`).
   */
  executionLocality?: ExecutionLocality;
  /** The document's name; its `hpc` is `remote_job`. */
  execution_locality?: ExecutionLocality | 'hpc';
  /**
   * Required, here or as `resource_requirements`. `cpu`, `memory_mb` and `network` are
   * required; `min_vcpus`, `min_memory_gb`, `gpu` (`{kind?, count?, min_vram_gb?,
   * required?}`, the document's `memory_gb` for `min_vram_gb`; `count` 1 and `required`
   * true unless given) and `expected_wall_clock_ms` (a typical call, at most `timeoutMs`; the
   * document's `expected_wallclock_seconds` too) are optional.
   * @default no host minimums, no GPU, no expected time
   */
  resourceRequirements?: ResourceRequirementsInput;
  resource_requirements?: ResourceRequirementsInput;
  /** @default { kind: 'free' } (also as `cost_model`) */
  costModel?: { kind: 'free' | 'metered'; unit?: string };
  cost_model?: { kind: 'free' | 'metered'; unit?: string };
  /**
   * What `licensing` does not say: attribution, restrictions, a backend's terms (at most 500
   * characters; also as `licensing_notes`). @default ''
   */
  licensingNotes?: string;
  licensing_notes?: string;
  /** @default 'autonomous' */
  hitl?: 'autonomous' | 'confirm';
  /** The document's tiers: `autonomous` is `hitl: 'autonomous'`, any other `'confirm'`. */
  hitl_frequency?: HitlFrequency;
  /**
   * The document's `seeded` and `stochastic` are taken as `nondeterministic`.
   * @default 'deterministic' when annotations.openWorld is false, else 'nondeterministic'
   */
  determinism?: 'deterministic' | 'nondeterministic' | 'seeded' | 'stochastic';
  /**
   * `safe`: a call may be cut off at any time; `unsafe`: a cut-off call may leave its side
   * effects half done (the document's `true` and `false`).
   * @default 'safe' when annotations.readOnly, else 'unsafe'
   */
  interruptibility?: Interruptibility | boolean;
}

/** The same fields in CAESAR's names and values, ready for the spec. */
export interface Resolved {
  executionLocality: unknown;
  resourceRequirements: unknown;
  costModel: unknown;
  licensingNotes: unknown;
  hitl: unknown;
  determinism: unknown;
  interruptibility: unknown;
}

/**
 * Reads each field under CAESAR's name or the document's, in CAESAR's values. Disagreements
 * and document values with no CAESAR counterpart go to `issues`, at the spec's path.
 */
export function resolveDocumentNames(def: DocumentNamed, issues: FieldIssue[]): Resolved {
  const one = <T>(
    path: string,
    ours: [string, T | undefined],
    theirs: [string, unknown],
    convert: (v: unknown) => T | undefined = (v) => v as T,
  ): T | undefined => either(path, ours, theirs, convert, issues);
  const rr = one(
    'resource_requirements',
    ['resourceRequirements', def.resourceRequirements],
    ['resource_requirements', def.resource_requirements],
  );
  return {
    executionLocality: one(
      'execution_locality',
      ['executionLocality', def.executionLocality],
      ['execution_locality', def.execution_locality],
      locality,
    ),
    resourceRequirements: requirements(rr, issues),
    costModel: one('cost_model', ['costModel', def.costModel], ['cost_model', def.cost_model]),
    licensingNotes: one(
      'licensing_notes',
      ['licensingNotes', def.licensingNotes],
      ['licensing_notes', def.licensing_notes],
    ),
    hitl: one('hitl', ['hitl', def.hitl], ['hitl_frequency', def.hitl_frequency], hitlOf),
    determinism: valueOf(def.determinism, {
      seeded: 'nondeterministic',
      stochastic: 'nondeterministic',
    }),
    interruptibility: valueOf(def.interruptibility, { true: 'safe', false: 'unsafe' }),
  };
}

/** `ours` or `theirs` (converted), whichever is given; both and different: an issue. */
function either<T>(
  path: string,
  [ourName, ours]: [string, T | undefined],
  [theirName, theirs]: [string, unknown],
  convert: (v: unknown) => T | undefined,
  issues: FieldIssue[],
): T | undefined {
  if (theirs === undefined) return ours;
  const converted = convert(theirs);
  if (converted === undefined) {
    issues.push({ path, message: `${theirName} ${show(theirs)} has no counterpart in CAESAR` });
    return ours;
  }
  if (ours !== undefined && canonicalJson(ours) !== canonicalJson(converted)) {
    const message = `${ourName} ${show(ours)} and ${theirName} ${show(theirs)} differ; give one`;
    issues.push({ path, message });
  }
  return ours ?? converted;
}

/** A document value as CAESAR's (`hpc` is a job on a bigger host); others as they are. */
function locality(v: unknown): ExecutionLocality | undefined {
  return (v === 'hpc' ? 'remote_job' : v) as ExecutionLocality | undefined;
}

function hitlOf(v: unknown): 'autonomous' | 'confirm' | undefined {
  if (!HITL_FREQUENCIES.includes(v as HitlFrequency)) return undefined;
  return v === 'autonomous' ? 'autonomous' : 'confirm';
}

/** A document value (a string or a boolean) as CAESAR's, by `map`; any other as it is. */
function valueOf(v: unknown, map: Readonly<Record<string, string>>): unknown {
  const key = typeof v === 'string' || typeof v === 'boolean' ? String(v) : undefined;
  return key === undefined ? v : (map[key] ?? v);
}

/**
 * The requirements with the document's names read (`expected_wallclock_seconds`, a GPU's
 * `memory_gb`) and a GPU's `required` (true) and `count` (1) filled in.
 */
function requirements(rr: unknown, issues: FieldIssue[]): unknown {
  if (typeof rr !== 'object' || rr === null) return rr;
  const { expected_wallclock_seconds: seconds, gpu, ...rest } = rr as ResourceRequirementsInput;
  const ms = either(
    'resource_requirements.expected_wall_clock_ms',
    ['expected_wall_clock_ms', rest.expected_wall_clock_ms],
    ['expected_wallclock_seconds', seconds],
    (s) => (typeof s === 'number' ? Math.round(s * 1000) : s) as number,
    issues,
  );
  return {
    ...rest,
    ...(ms === undefined ? {} : { expected_wall_clock_ms: ms }),
    ...(gpu === undefined ? {} : { gpu: gpuOf(gpu, issues) }),
  };
}

function gpuOf(gpu: GpuRequirementInput, issues: FieldIssue[]): unknown {
  if (typeof gpu !== 'object' || gpu === null) return gpu;
  const { memory_gb, ...rest } = gpu;
  const vram = either(
    'resource_requirements.gpu.min_vram_gb',
    ['min_vram_gb', rest.min_vram_gb],
    ['memory_gb', memory_gb],
    (v) => v as number,
    issues,
  );
  return {
    ...rest,
    required: rest.required ?? true,
    count: rest.count ?? 1,
    ...(vram === undefined ? {} : { min_vram_gb: vram }),
  };
}

/** A value in a message: its JSON, at most 60 characters (the author's own words, bounded). */
function show(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return `(${text.length > 60 ? `${text.slice(0, 59)}…` : text})`;
}
