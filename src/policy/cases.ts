import { z } from 'zod';
import { forwardIssues } from '../protocol/index.js';
import type { CompiledPolicy } from './compiled.js';
import {
  DECISION_OUTCOMES,
  DEFAULT_DENY_RULE_ID,
  type DecisionOutcome,
  type PolicyDecision,
} from './decision.js';
import { durationSchema } from '../text/index.js';
import { PolicyEngine } from './engine.js';
import { PolicyCasesError } from './errors.js';
import type { FlowContext } from './flow-context.js';
import { isGenericToolCall, isServiceCallTool, type ToolCall } from './tool-call.js';
import { MAX_GROUPS, PRINCIPAL_NAME_RE, PRINCIPAL_NAME_RULE } from './principal.js';
import { parseYamlSource } from './yaml-source.js';

/**
 * A cases file for `caesar policy test`: calls with the outcome the policy must give them.
 * Cases run in order against one engine whose clock stands still (at the time the run starts)
 * and moves only by `advance`, so rate limits are testable.
 */
const ToolCaseCallSchema = z.strictObject({ tool: z.string(), input: z.unknown().optional() });
const ServiceCaseCallSchema = z.preprocess(
  (v) => {
    if (typeof v !== 'object' || v === null || 'domain' in v) return v;
    const service = (v as { service?: unknown }).service;
    const m = typeof service === 'string' ? /^([^.]+)\.(.+)$/.exec(service) : null;
    return m ? { ...v, domain: m[1], service: m[2] } : v;
  },
  z.strictObject({
    domain: z.string(),
    service: z.string(),
    target: z.unknown().optional(),
    data: z.unknown().optional(),
  }),
);

const CaseCallSchema = z.record(z.string(), z.unknown()).transform((call, ctx): ToolCall => {
  const schema = 'tool' in call ? ToolCaseCallSchema : ServiceCaseCallSchema;
  const parsed = schema.safeParse(call);
  if (parsed.success) return parsed.data as ToolCall;
  forwardIssues(ctx, parsed.error);
  return z.NEVER;
});

/**
 * A case judged as a model's call (docs/policy.md, "Flow rules"): what its turn had read and
 * what the tool does. A Home Assistant call changes state and reaches outside unless the case
 * says otherwise; a tool does neither unless it says so. Cases naming the same `turn` share
 * its per-turn counts.
 */
const CaseFlowSchema = z.strictObject({
  after_untrusted: z.boolean().optional(),
  after_private: z.boolean().optional(),
  changes_state: z.boolean().optional(),
  open_world: z.boolean().optional(),
  shares_private_words: z.boolean().optional(),
  turn: z.string().min(1).max(64).optional(),
});
type CaseFlow = z.infer<typeof CaseFlowSchema>;

const PolicyCaseSchema = z.strictObject({
  name: z.string().min(1),
  call: CaseCallSchema,
  expect: z.enum(DECISION_OUTCOMES),
  /** The id of the rule that must decide; `default_deny` (or null) for the default deny. */
  rule: z
    .string()
    .nullable()
    .transform((id) => id ?? DEFAULT_DENY_RULE_ID)
    .optional(),
  confirmed: z.boolean().optional(),
  flow: CaseFlowSchema.optional(),
  /**
   * Who asks (ADR 0096): the principal the case is judged as, and its groups; absent, a
   * caller with no principal, whom rules naming principals or groups never apply to.
   */
  principal: z.string().regex(PRINCIPAL_NAME_RE, PRINCIPAL_NAME_RULE).optional(),
  groups: z
    .array(z.string().regex(PRINCIPAL_NAME_RE, PRINCIPAL_NAME_RULE))
    .max(MAX_GROUPS)
    .optional(),
  /** Move the clock forward before this case, e.g. `1m`. */
  advance: durationSchema({ min: 1, max: Number.MAX_SAFE_INTEGER }).optional(),
});
type PolicyCase = z.infer<typeof PolicyCaseSchema>;

const PolicyCasesFileSchema = z.strictObject({
  cases: z
    .array(
      PolicyCaseSchema.refine((c) => c.groups === undefined || c.principal !== undefined, {
        message: "groups belong to a principal: name the case's principal too",
        path: ['groups'],
      }),
    )
    .min(1),
});

/** Parses a cases file; throws PolicyCasesError with file:line:column issues. */
export function parsePolicyCases(text: string, file = 'cases.yaml'): PolicyCase[] {
  const source = parseYamlSource(text);
  if (source.issues.length > 0) throw new PolicyCasesError(file, source.issues);
  const parsed = PolicyCasesFileSchema.safeParse(source.value);
  if (!parsed.success) throw new PolicyCasesError(file, source.fromZod(parsed.error));
  return parsed.data.cases;
}

export interface PolicyCaseResult {
  readonly name: string;
  readonly passed: boolean;
  readonly expected: DecisionOutcome;
  readonly decision: PolicyDecision;
  /** Why the case failed; empty when it passed. */
  readonly mismatch: string;
}

function flowContext(
  call: ToolCall,
  f: CaseFlow,
  turns: Map<string, Map<string, number>>,
): FlowContext {
  const service =
    !isGenericToolCall(call) || isServiceCallTool(call.tool) || call.tool.includes('.');
  const turn = f.turn ?? '1';
  let counts = turns.get(turn);
  if (counts === undefined) {
    counts = new Map<string, number>();
    turns.set(turn, counts);
  }
  return {
    afterUntrusted: f.after_untrusted ?? false,
    afterPrivate: f.after_private ?? false,
    changesState: f.changes_state ?? service,
    openWorld: f.open_world ?? service,
    sharesPrivateWords: f.shares_private_words ?? true,
    turnCounts: counts,
  };
}

/** Runs cases in order against a fresh engine for `policy`; the clock starts at `start`. */
export function runPolicyCases(
  policy: CompiledPolicy,
  cases: readonly PolicyCase[],
  start: number = Date.now(),
): PolicyCaseResult[] {
  let clock = start;
  const engine = new PolicyEngine(policy, { now: () => clock });
  const turns = new Map<string, Map<string, number>>();
  return cases.map((c) => {
    clock += c.advance ?? 0;
    const flow = c.flow === undefined ? {} : { flow: flowContext(c.call, c.flow, turns) };
    const principal =
      c.principal === undefined ? {} : { principal: { name: c.principal, groups: c.groups ?? [] } };
    const decision = engine.evaluate(c.call, {
      confirmed: c.confirmed ?? false,
      ...flow,
      ...principal,
    });
    const problems: string[] = [];
    if (decision.outcome !== c.expect)
      problems.push(`expected ${c.expect}, got ${decision.outcome}`);
    if (c.rule !== undefined && decision.rule.id !== c.rule) {
      problems.push(`expected rule ${c.rule}, got ${decision.rule.id}`);
    }
    const mismatch = problems.join('; ');
    return { name: c.name, passed: mismatch === '', expected: c.expect, decision, mismatch };
  });
}
