import type { CompileContext } from './compile-context.js';
import { compileAudience } from './compile-shared.js';
import type { CompiledEntityDeny, CompiledServiceDeny, EntityRules } from './compiled.js';
import { compileGlob, isGlob, type TextMatcher } from './glob.js';
import type { DenyEntityRuleSpec } from './schema.js';

export function compileDenyEntity(
  ctx: CompileContext,
  index: number,
  spec: DenyEntityRuleSpec,
): CompiledEntityDeny {
  const ref = ctx.ref('denied_entities', index, spec.id);
  const exact = new Set(spec.entity_id.filter((id) => !isGlob(id)));
  const globs = spec.entity_id.filter(isGlob).map((id) => compileGlob(id));
  const domains = domainsOf(spec.entity_id);
  const literal = domains.filter((d): d is string => typeof d === 'string');
  return {
    ref,
    label: ctx.label(ref),
    who: compileAudience(spec),
    matches: (id) => exact.has(id) || anyMatches(globs, id),
    reaches: (domain) =>
      domains.some((d) => (typeof d === 'string' ? d === domain : d.test(domain))),
    reachesOther: (domain) => literal.length < domains.length || literal.some((d) => d !== domain),
  };
}

/** A loop, not `some`: no closure per call on the evaluation path. */
function anyMatches(globs: readonly TextMatcher[], id: string): boolean {
  for (const g of globs) if (g.test(id)) return true;
  return false;
}

/** The domain part of each pattern: a literal, or a matcher when it holds a wildcard. */
function domainsOf(patterns: readonly string[]): (string | TextMatcher)[] {
  return patterns.map((p) => {
    const dot = p.indexOf('.');
    // no dot: a glob such as `*` or `*door*` may stand for any domain
    const domain = dot < 0 ? '*' : p.slice(0, dot);
    return isGlob(domain) ? compileGlob(domain) : domain;
  });
}

/**
 * The deny rules as they see entities: `denied_entities` as they are, and `denied_services`
 * indexed by their pattern's domain, for calls of other services that name entities of it.
 */
export function buildEntityRules(
  entities: readonly CompiledEntityDeny[],
  services: readonly CompiledServiceDeny[],
): EntityRules {
  const globDomains = services.filter((r) => r.domainGlob !== null);
  const byDomain = new Map<string, CompiledServiceDeny[]>();
  for (const rule of services) {
    if (rule.domainGlob !== null || byDomain.has(rule.domain)) continue;
    const d = rule.domain;
    byDomain.set(
      d,
      services.filter((r) => r.domain === d || r.domainGlob?.test(d) === true),
    );
  }
  return { entities, byDomain, globDomains, foreignDeny: foreignDenyOf(entities, services) };
}

/** `foreignDeny(domain)`: the first rule, in file order per list, that reaches another domain. */
function foreignDenyOf(
  entities: readonly CompiledEntityDeny[],
  services: readonly CompiledServiceDeny[],
): (domain: string) => string | null {
  return (domain) => {
    for (const rule of services) {
      if (rule.domainGlob !== null || rule.domain !== domain) return rule.label;
    }
    return entities.find((rule) => rule.reachesOther(domain))?.label ?? null;
  };
}
