import { compileAllowMap } from './constraint-allow.js';
import { compileDenyMap } from './constraint-deny.js';
import type { CompileContext } from './compile-context.js';
import { compileAudience, compileGrants } from './compile-shared.js';
import type { FlowSettings } from './compile-flow.js';
import type { CompiledAllowRule, CompiledServiceDeny, EntityRules } from './compiled.js';
import { opaqueRefusal } from './evaluate-entities.js';
import { compileGlob, isGlob } from './glob.js';
import { MATCH_ALL, type NormalizedServiceCall } from './normalize.js';
import type { AllowServiceRuleSpec, DenyServiceRuleSpec } from './schema.js';
import { compileCoverage, compileOverlap } from './selectors.js';
import { SELECTOR_KINDS } from './tool-call.js';

type Call = NormalizedServiceCall;
type Check = (call: Call) => string | null;

const NO_OBLIGATIONS = Object.freeze([]);

/** Target-like keys in `data` are targets, not data: `additional_data: false` ignores them. */
const SELECTOR_KEYS: ReadonlySet<string> = new Set(SELECTOR_KINDS);

/**
 * `entities`: the policy's deny rules as they see entities; a rule without a target does not
 * cover what they make it refuse (opaqueRefusal).
 */
export function compileAllowService(
  ctx: CompileContext,
  index: number,
  spec: AllowServiceRuleSpec,
  entities: EntityRules,
  flow: FlowSettings,
): CompiledAllowRule<Call> {
  const ref = ctx.ref('allowed_services', index, spec.id);
  const label = ctx.label(ref);
  // Without a target the rule takes any target but `all` (only a rule listing `all` covers
  // it) and but what the policy cannot list on a service that can reach other domains while
  // entity rules deny some of them (only a rule naming it covers it).
  const coverage: Check = spec.target
    ? compileCoverage(spec.target, ref.id)
    : (call) =>
        (call.opaque ? opaqueRefusal(entities, call) : null) ??
        (call.usesAll ? allNotCovered(ref.id) : null);
  const additional = spec.additional_data ?? true;
  const data =
    spec.data || !additional
      ? compileAllowMap('data', spec.data ?? {}, additional, SELECTOR_KEYS)
      : null;
  const check: Check = data ? (call) => coverage(call) ?? data(call.data) : coverage;
  return {
    ref,
    label,
    bare: false,
    check,
    ...compileGrants(ctx, ref, spec, flow),
    obligations: NO_OBLIGATIONS,
    reason: `allowed by ${label}`,
    glob: isGlob(spec.service) ? compileGlob(spec.service) : null,
    key: spec.service,
    listsAll: SELECTOR_KINDS.some((k) => spec.target?.[k]?.includes(MATCH_ALL) === true),
    unconstrained: !spec.target && !data,
  };
}

export function compileDenyService(
  ctx: CompileContext,
  index: number,
  spec: DenyServiceRuleSpec,
): CompiledServiceDeny {
  const ref = ctx.ref('denied_services', index, spec.id);
  const label = ctx.label(ref);
  const overlap = spec.target ? compileOverlap(spec.target) : null;
  const data = spec.data ? compileDenyMap(spec.data) : null;
  const bare = overlap === null && data === null;
  const matches = bare
    ? () => true
    : (call: Call) => (overlap === null || overlap(call)) && (data === null || data(call.data));
  const domain = spec.service.slice(0, spec.service.indexOf('.'));
  return {
    ref,
    label,
    bare,
    who: compileAudience(spec),
    matches,
    reason: `denied by ${label}`,
    glob: isGlob(spec.service) ? compileGlob(spec.service) : null,
    key: spec.service,
    domain,
    domainGlob: isGlob(domain) ? compileGlob(domain) : null,
    overlap,
  };
}

function allNotCovered(ruleName: string): string {
  return `target ${MATCH_ALL} (every entity) is not allowed by ${ruleName}; only a rule whose target lists ${MATCH_ALL} allows it`;
}
