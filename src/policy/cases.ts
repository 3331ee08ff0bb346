import { z } from 'zod';
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
import type { ToolCall } from './tool-call.js';
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
  for (const issue of parsed.error.issues) {
    ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  }
  return z.NEVER;
});

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
  /** Move the clock forward before this case, e.g. `1m`. */
  advance: durationSchema({ min: 1, max: Number.MAX_SAFE_INTEGER }).optional(),
});
type PolicyCase = z.infer<typeof PolicyCaseSchema>;

const PolicyCasesFileSchema = z.strictObject({ cases: z.array(PolicyCaseSchema).min(1) });

/** Parses a cases file; throws PolicyCasesError with file:line:column issues. */
export function parsePolicyCases(text: string, file = 'cases.yaml'): PolicyCase[] {
  const source = parseYamlSource(text);
  if (source.issues.length > 0) throw new PolicyCasesError(file, source.issues);
  const parsed = PolicyCasesFileSchema.safeParse(source.value);
  if (!parsed.success) throw new PolicyCasesError(file, source.fromZod(parsed.error.issues));
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

/** Runs cases in order against a fresh engine for `policy`; the clock starts at `start`. */
export function runPolicyCases(
  policy: CompiledPolicy,
  cases: readonly PolicyCase[],
  start: number = Date.now(),
): PolicyCaseResult[] {
  let clock = start;
  const engine = new PolicyEngine(policy, { now: () => clock });
  return cases.map((c) => {
    clock += c.advance ?? 0;
    const decision = engine.evaluate(c.call, { confirmed: c.confirmed ?? false });
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
