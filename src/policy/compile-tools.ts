import { canonicalCallable } from '../protocol/index.js';
import { actionKeys } from './action-keys.js';
import { compileAllowMap } from './constraint-allow.js';
import { compileDenyMap } from './constraint-deny.js';
import { ConstraintSchema, type ConstraintSpec } from './constraint-schema.js';
import type { CompileContext } from './compile-context.js';
import { ACCEPT, compileAudience, compileGrants } from './compile-shared.js';
import type { FlowSettings } from './compile-flow.js';
import type { CompiledAllowRule, CompiledDenyRule } from './compiled.js';
import type { Obligation } from './decision.js';
import { typedKeyOf } from './matchers/registry.js';
import type { InputCheck } from './matchers/types.js';
import { isRecord } from '../text/index.js';
import type { AllowToolRuleSpec, DenyToolRuleSpec } from './schema.js';

type Check = CompiledAllowRule<unknown>['check'];

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});

/** An `input:` block split into field constraints and the tool's typed keys. */
interface CompiledInput {
  readonly constraints: Record<string, ConstraintSpec>;
  readonly checks: InputCheck[];
  readonly obligations: Obligation[];
  /** Fields governed by typed keys: not "additional" under `additional_input: false`. */
  readonly governed: Set<string>;
}

export function compileAllowTool(
  ctx: CompileContext,
  index: number,
  spec: AllowToolRuleSpec,
  flow: FlowSettings,
): CompiledAllowRule<unknown> {
  const ref = ctx.ref('allowed_tools', index, spec.id);
  const label = ctx.label(ref);
  const input = compileInput(spec.tool, spec.input);
  const check = allowCheck(input, spec.additional_input ?? true);
  return {
    ref,
    label,
    bare: check === ACCEPT,
    check,
    ...compileGrants(ctx, ref, spec, flow),
    obligations: Object.freeze(input.obligations),
    reason: `allowed by ${label}`,
    glob: null,
    key: actionKeys(spec).join(', '),
    listsAll: false,
    unconstrained: check === ACCEPT,
  };
}

export function compileDenyTool(
  ctx: CompileContext,
  index: number,
  spec: DenyToolRuleSpec,
): CompiledDenyRule<unknown> {
  const ref = ctx.ref('denied_tools', index, spec.id);
  const label = ctx.label(ref);
  const input = compileInput(spec.tool, spec.input);
  const bare = Object.keys(input.constraints).length === 0;
  const matches = bare ? () => true : compileDenyMap(input.constraints);
  const key = actionKeys(spec).join(', ');
  const who = compileAudience(spec);
  return { ref, label, bare, who, matches, reason: `denied by ${label}`, glob: null, key };
}

/**
 * One copy of each compiled tool rule per id it applies to, for the index (the copies share
 * the rule's reference and rate-limit slot: they are the same rule). `specs[i]` is the
 * written rule of `rules[i]`.
 */
export function perActionKey<R extends { readonly key: string }>(
  rules: readonly R[],
  specs: readonly { readonly tool: string; readonly actions?: readonly string[] }[],
): R[] {
  return rules.flatMap((rule, i) => {
    const spec = specs[i];
    if (spec?.actions === undefined) {
      // a legacy Home Assistant name is the action it names now (ADR 0093)
      const key = canonicalCallable(rule.key);
      return [key === rule.key ? rule : { ...rule, key }];
    }
    return actionKeys(spec).map((key) => ({ ...rule, key }));
  });
}

/** Field constraints first, then the typed keys' checks; the first failure is the reason. */
function allowCheck(input: CompiledInput, additional: boolean): Check {
  const hasConstraints = Object.keys(input.constraints).length > 0;
  if (!hasConstraints && additional && input.checks.length === 0) return ACCEPT;
  const map = compileAllowMap('input', input.constraints, additional, input.governed);
  const typed = input.checks;
  if (typed.length === 0) return map;
  return (call, now) => {
    const why = map(call);
    if (why !== null) return why;
    const input = isRecord(call) ? call : EMPTY;
    for (const check of typed) {
      const reason = check(input, now);
      if (reason !== null) return reason;
    }
    return null;
  };
}

/** Splits a validated `input:` block (see rule-checks.ts) into constraints and typed keys. */
function compileInput(tool: string, raw: Record<string, unknown> | undefined): CompiledInput {
  const out: CompiledInput = { constraints: {}, checks: [], obligations: [], governed: new Set() };
  for (const [key, value] of Object.entries(raw ?? {})) {
    const typed = typedKeyOf(tool, key);
    if (typed === undefined) {
      out.constraints[key] = ConstraintSchema.parse(value);
      continue;
    }
    const compiled = typed.compile(typed.schema.parse(value));
    if (compiled.check) out.checks.push(compiled.check);
    if (compiled.obligation) out.obligations.push(compiled.obligation);
    for (const field of typed.governs) out.governed.add(field);
  }
  return out;
}
