import { createHash } from 'node:crypto';
import { CompileContext } from './compile-context.js';
import { compileFlowSection, type FlowSettings, type RuleFlow } from './compile-flow.js';
import { buildEntityRules, compileDenyEntity } from './compile-entities.js';
import { compileAllowService, compileDenyService } from './compile-services.js';
import { compileAllowTool, compileDenyTool, perActionKey } from './compile-tools.js';
import type {
  Candidates,
  CompiledAllowRule,
  CompiledDenyRule,
  CompiledPolicy,
  DefaultDenyRefs,
  RuleSummary,
} from './compiled.js';
import { DEFAULT_DENY_RULE_ID, RULE_LISTS, type RuleList, type RuleRef } from './decision.js';
import { PolicyLoadError } from './errors.js';
import type { PolicyIssue } from './issues.js';
import { lintPolicy } from './lint.js';
import { isRecord } from '../text/index.js';
import type { NormalizedServiceCall } from './normalize.js';
import { indexRules, withToolWideRules } from './rule-index.js';
import {
  PolicyFileSchema,
  PolicyShapeSchema,
  RULE_ITEM_SCHEMAS,
  type PolicyFile,
} from './schema.js';
import { HA_CALL_SERVICE, HOME_ASSISTANT_TOOL, isServiceCallTool } from '../protocol/index.js';
import { toolMentions } from './tool-names.js';
import { audienceMentions } from './audience-names.js';
import { namedEntities } from './named-entities.js';
import { parseYamlSource, type YamlSource } from './yaml-source.js';

interface CompileOptions {
  /** Name shown in reasons and errors. @default 'policy.yaml' */
  file?: string;
  /** SHA-256 of the file's bytes when the caller already has it. @default hash of `text` */
  sha256?: string;
}

const EMPTY_FILE_WARNING =
  'the policy file is empty, so every tool call is denied; add allowed_tools or allowed_services entries (see docs/policy.md)';

/** Rules compiled between two yields of a sliced compile. */
const RULES_PER_SLICE = 250;

/**
 * Parses, validates and compiles a policy text. Every problem (YAML syntax, unknown keys,
 * wrong types, bad ids, duplicate rule ids) is collected and thrown together as one
 * PolicyLoadError whose issues carry line, column and path; nothing half-loaded escapes.
 * An empty file compiles to a policy that denies everything, with a warning.
 */
export function compilePolicy(text: string, options: CompileOptions = {}): CompiledPolicy {
  const steps = compileSteps(text, options);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * As compilePolicy, but lets the event loop run between parsing, validating and every
 * RULES_PER_SLICE rules, so a reload of a large file does not hold up requests (the brain's
 * reloads use it). The longest slice is the YAML parse of the whole file, which
 * `policy.max_file_bytes` bounds.
 */
export async function compilePolicySliced(
  text: string,
  options: CompileOptions = {},
): Promise<CompiledPolicy> {
  const steps = compileSteps(text, options);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** The compile as a sequence of slices: each `yield` is a point where it may pause. */
function* compileSteps(text: string, options: CompileOptions): Generator<void, CompiledPolicy> {
  const file = options.file ?? 'policy.yaml';
  const sha256 = options.sha256 ?? createHash('sha256').update(text, 'utf8').digest('hex');
  const source = parseYamlSource(text);
  if (source.issues.length > 0) throw new PolicyLoadError(file, source.issues);
  yield;
  if (source.value === null || source.value === undefined) {
    const empty = PolicyFileSchema.parse({});
    const warning: PolicyIssue = { path: '', line: 1, column: 1, message: EMPTY_FILE_WARNING };
    return yield* build(new CompileContext(file, source, sha256), empty, sha256, [warning]);
  }
  const spec = yield* validate(source);
  const issues = [...spec.issues, ...duplicateIds(source)];
  if (spec.file === null || issues.length > 0) {
    throw new PolicyLoadError(file, issues.sort(byPosition));
  }
  yield;
  return yield* build(new CompileContext(file, source, sha256), spec.file, sha256, []);
}

/**
 * PolicyFileSchema, applied in steps: the file's shape, then each rule (pausing every
 * RULES_PER_SLICE rules). Issues are the same as one parse of the whole file would give.
 */
function* validate(
  source: YamlSource,
): Generator<void, { file: PolicyFile | null; issues: PolicyIssue[] }> {
  const shape = PolicyShapeSchema.safeParse(source.value);
  const issues = shape.success ? [] : source.fromZod(shape.error);
  const doc = isRecord(source.value) ? source.value : {};
  const lists = {} as { -readonly [L in RuleList]: PolicyFile[L] };
  let checked = 0;
  for (const list of RULE_LISTS) {
    const items: unknown = doc[list];
    const rules: unknown[] = [];
    for (const [index, item] of (Array.isArray(items) ? items : []).entries()) {
      const rule = RULE_ITEM_SCHEMAS[list].safeParse(item);
      if (rule.success) rules.push(rule.data);
      else issues.push(...source.fromZod(rule.error, [list, index]));
      if (++checked % RULES_PER_SLICE === 0) yield;
    }
    (lists as Record<RuleList, unknown[]>)[list] = rules;
  }
  if (!shape.success || issues.length > 0) return { file: null, issues };
  const { version, flow } = shape.data;
  return { file: { ...(version === undefined ? {} : { version }), flow, ...lists }, issues };
}

/** `compile(rule, index)` for each rule, pausing every RULES_PER_SLICE rules. */
function* mapSliced<T, R>(
  rules: readonly T[],
  compile: (rule: T, index: number) => R,
): Generator<void, R[]> {
  const out: R[] = [];
  for (let i = 0; i < rules.length; i++) {
    out.push(compile(rules[i] as T, i));
    if ((i + 1) % RULES_PER_SLICE === 0) yield;
  }
  return out;
}

function* build(
  ctx: CompileContext,
  spec: PolicyFile,
  sha256: string,
  warnings: PolicyIssue[],
): Generator<void, CompiledPolicy> {
  const denyServices = yield* mapSliced(spec.denied_services, (r, i) =>
    compileDenyService(ctx, i, r),
  );
  const denyEntities = yield* mapSliced(spec.denied_entities, (r, i) =>
    compileDenyEntity(ctx, i, r),
  );
  const entityRules = buildEntityRules(denyEntities, denyServices);
  const flow = compileFlowSection(ctx, spec.flow);
  const allowServices = yield* mapSliced(spec.allowed_services, (r, i) =>
    compileAllowService(ctx, i, r, entityRules, flow),
  );
  const allowTools = yield* mapSliced(spec.allowed_tools, (r, i) =>
    compileAllowTool(ctx, i, r, flow),
  );
  const denyTools = yield* mapSliced(spec.denied_tools, (r, i) => compileDenyTool(ctx, i, r));
  yield;

  const serviceGlobs: Candidates<NormalizedServiceCall> = {
    denies: denyServices.filter((r) => r.glob !== null),
    allows: allowServices.filter((r) => r.glob !== null),
  };
  const serviceIndex = indexRules(denyServices, allowServices);
  const toolIndex = withToolWideRules(
    indexRules(
      perActionKey(denyTools, spec.denied_tools),
      perActionKey(allowTools, spec.allowed_tools),
      HA_CALL_SERVICE,
    ),
  );
  const killSwitches = denyTools.filter(
    (r, i) => r.bare && deniesServiceCalls(spec.denied_tools[i]!),
  );
  // the lint's: a switch that names principals or groups kills only their calls
  const killSwitch = killSwitches.find((r) => r.who === null) ?? null;
  const rules = [
    ...allowServices.map((r) => summary(r, 'allow', spec.allowed_services[r.ref.index ?? 0], flow)),
    ...denyServices.map((r) => summary(r, 'deny', spec.denied_services[r.ref.index ?? 0])),
    ...allowTools.map((r) => summary(r, 'allow', spec.allowed_tools[r.ref.index ?? 0], flow)),
    ...denyTools.map((r) => summary(r, 'deny', spec.denied_tools[r.ref.index ?? 0])),
    ...spec.denied_entities.map((r, i) =>
      summary({ ref: denyEntities[i]!.ref, key: r.entity_id.join(', ') }, 'deny', r),
    ),
  ];
  yield;
  const lint = lintPolicy(ctx, spec, { serviceIndex, serviceGlobs, toolIndex, killSwitch });
  return {
    file: ctx.file,
    sha256,
    rules,
    warnings: [...warnings, ...lint],
    denyAllReason: null,
    toolMentions: toolMentions(ctx, spec),
    audienceMentions: audienceMentions(ctx),
    namedEntities: namedEntities(spec),
    flow,
    defaultDeny: defaultDenyRefs(ctx),
    serviceIndex,
    serviceGlobs,
    toolIndex,
    serviceKillSwitches: killSwitches,
    rateSlots: [...ctx.rateSlots],
    entityRules,
  };
}

function summary(
  rule: Pick<CompiledAllowRule<unknown> | CompiledDenyRule<unknown>, 'ref' | 'key'> & {
    flow?: RuleFlow;
  },
  effect: 'allow' | 'deny',
  spec: { description?: string | undefined } | undefined,
  section?: FlowSettings,
): RuleSummary {
  const description = spec?.description;
  const out: RuleSummary =
    description === undefined
      ? { ref: rule.ref, effect, subject: rule.key }
      : { ref: rule.ref, effect, subject: rule.key, description };
  // the rule's own after_* keys: the verdicts that are not the section's
  const own = rule.flow
    ? [rule.flow.untrusted, rule.flow.private].filter(
        (v) => v !== section?.afterUntrusted && v !== section?.afterPrivate,
      )
    : [];
  return own.length === 0 ? out : { ...out, flow: own };
}

/** Default-deny references point at the list an allow entry would go into, or at 1:1. */
function defaultDenyRefs(ctx: CompileContext): DefaultDenyRefs {
  const refAt = (list: RuleList): RuleRef => {
    const present = isRecord(ctx.source.value) && Object.hasOwn(ctx.source.value, list);
    const at = present ? ctx.source.locate([], list) : { line: 1, column: 1 };
    return defaultDenyRef(ctx.file, at.line, at.column);
  };
  return { tools: refAt('allowed_tools'), services: refAt('allowed_services') };
}

/** The reference of a decision no rule made. */
function defaultDenyRef(file: string, line = 1, column = 1): RuleRef {
  return Object.freeze({ id: DEFAULT_DENY_RULE_ID, file, line, column, list: null, index: null });
}

/** An explicit rule id used twice, anywhere in the file, is an error at its second use. */
function duplicateIds(source: YamlSource): PolicyIssue[] {
  const doc = source.value;
  if (!isRecord(doc)) return [];
  const seen = new Map<string, string>();
  const issues: PolicyIssue[] = [];
  for (const list of RULE_LISTS) {
    const items = doc[list];
    if (!Array.isArray(items)) continue;
    items.forEach((item: unknown, index) => {
      if (!isRecord(item) || typeof item.id !== 'string') return;
      const first = seen.get(item.id);
      const here = `${list}[${index}]`;
      if (first === undefined) seen.set(item.id, here);
      else
        issues.push(
          source.issueAt([list, index, 'id'], `rule id '${item.id}' is already used by ${first}`),
        );
    });
  }
  return issues;
}

function byPosition(a: PolicyIssue, b: PolicyIssue): number {
  return a.line - b.line || a.column - b.column;
}

/**
 * Whether a bare deny rule is the kill switch of every Home Assistant service call: it names
 * `call_service`, the action `home_assistant.call_service`, or the whole `home_assistant`
 * tool (ADR 0093).
 */
function deniesServiceCalls(rule: { readonly tool: string; readonly actions?: readonly string[] }) {
  if (rule.tool !== HOME_ASSISTANT_TOOL) return isServiceCallTool(rule.tool);
  return rule.actions === undefined || rule.actions.includes('call_service');
}
