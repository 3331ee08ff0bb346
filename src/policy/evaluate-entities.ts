import type { CompiledDenyRule, CompiledServiceDeny, EntityRules } from './compiled.js';
import type { MatchedTarget, RuleRef, TraceStep } from './decision.js';
import { MATCH_ALL, type NormalizedServiceCall } from './normalize.js';
import { domainOf, GROUP_DOMAIN, inDomain, isConfined, isForwarded } from './reach.js';
import { SELECTOR_KINDS } from './tool-call.js';
import { inAudience, type Audience, type Principal } from './principal.js';

type Call = NormalizedServiceCall;

/** A deny rule that matched through the entities a call names or may reach. */
export interface EntityHit {
  readonly ref: RuleRef;
  readonly label: string;
  /** What it matched, after `denied by <rule>: `. */
  readonly why: string;
  readonly target: MatchedTarget | null;
}

/** The deny rules that apply to a service key (`cover.turn_on`), globs included. */
export type DeniesFor = (key: string) => readonly CompiledDenyRule<Call>[];

/**
 * The entity rules, after the deny rules of the call's own service (docs/policy.md, "Entity
 * rules"): (1) `denied_entities` against every entity the call names; (2) for each named
 * entity of another domain, the deny rules of that domain: for the generic services Home
 * Assistant forwards, those of the service it runs there (`homeassistant.turn_on` on a cover:
 * `cover.turn_on`), for any other service every deny rule of the domain whose target may hold
 * the entity; (3) when the call names entities the policy cannot list (an area, `all`),
 * `denied_entities` rules that may name an entity of the service's own domain.
 */
export function entityDenial(
  rules: EntityRules,
  call: Call,
  deniesFor: DeniesFor,
  trace: TraceStep[] | null,
  who?: Principal,
): EntityHit | null {
  const ids = call.selectors[0] ?? NONE;
  for (const rule of rules.entities) {
    if (!forCaller(rule.who, who)) continue;
    for (const id of ids) {
      if (id !== MATCH_ALL && rule.matches(id)) {
        return hit(
          rule,
          `it targets ${id}`,
          { entity_id: id, service: sameDomain(call, id) },
          trace,
        );
      }
    }
    if (call.opaque && rule.reaches(call.domain)) {
      return hit(
        rule,
        `${opaqueSelector(call).text}, which may hold entities it names`,
        null,
        trace,
      );
    }
    trace?.push({ rule: rule.ref, result: 'not_matched' });
  }
  if (!call.crossDomain) return null;
  const forwarded = isForwarded(call.key);
  for (const id of ids) {
    const domain = inDomain(id, call.domain) ? null : domainOf(id);
    if (domain === null) continue;
    const found = forwarded
      ? forwardedDeny(call, id, domain, deniesFor, trace, who)
      : domainDeny(rules, call, id, domain, trace, who);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Why an allow rule without a target does not cover the call, or null when it may: the call
 * names entities the policy cannot list, on a service that can reach other domains, while
 * deny rules for other domains exist. Only a rule whose target lists the selector covers it.
 */
export function opaqueRefusal(rules: EntityRules, call: Call): string | null {
  if (!call.opaque || isConfined(call.domain)) return null;
  const other = rules.foreignDeny(call.domain);
  if (other === null) return null;
  const { text, kind, id } = opaqueSelector(call);
  return (
    `${text}, which may hold entities of other domains that ${other} denies, and the policy ` +
    `cannot see what it holds: name the entities under entity_id, or allow it explicitly ` +
    `with target: {${kind}: [${id}]} in a rule for ${call.key}`
  );
}

/** The first deny rule of `domain.<service>` the forwarded call meets on entity `id`. */
function forwardedDeny(
  call: Call,
  id: string,
  domain: string,
  deniesFor: DeniesFor,
  trace: TraceStep[] | null,
  who: Principal | undefined,
): EntityHit | null {
  const key = `${domain}.${call.service}`;
  const view = entityView(call, domain, call.service, key, id);
  for (const rule of deniesFor(key)) {
    if (!forCaller(rule.who, who)) continue;
    if (rule.bare || rule.matches(view)) {
      const why = `it targets ${id}, which Home Assistant runs as ${key}`;
      return hit(rule, why, { entity_id: id, service: key }, trace);
    }
    trace?.push({ rule: rule.ref, result: 'not_matched', target: id });
  }
  return null;
}

/**
 * Any deny rule of `domain` whose target may hold `id`: the service the call runs on the
 * entity is unknown, so the rule's service part and data constraints cannot rule it out.
 */
function domainDeny(
  rules: EntityRules,
  call: Call,
  id: string,
  domain: string,
  trace: TraceStep[] | null,
  who: Principal | undefined,
): EntityHit | null {
  const listed = rules.byDomain.get(domain);
  for (const rule of listed ?? rules.globDomains) {
    if (listed === undefined && rule.domainGlob?.test(domain) !== true) continue;
    if (!forCaller(rule.who, who)) continue;
    if (covers(rule, call, id, domain)) {
      const why = `it targets ${id}, and the policy cannot see what ${call.key} does to it`;
      return hit(rule, why, { entity_id: id, service: null }, trace);
    }
    trace?.push({ rule: rule.ref, result: 'not_matched', target: id });
  }
  return null;
}

function covers(rule: CompiledServiceDeny, call: Call, id: string, domain: string): boolean {
  return rule.overlap === null || rule.overlap(entityView(call, domain, '', domain, id));
}

/** The call as Home Assistant makes it on one entity of `domain`. */
function entityView(call: Call, domain: string, service: string, key: string, id: string): Call {
  return {
    domain,
    service,
    key,
    selectors: [[id], null, null, null, null],
    selectorCount: 1,
    usesAll: false,
    crossDomain: false,
    opaque: false,
    data: call.data,
  };
}

/** The service run on `id`, when it is of the call's own domain. */
function sameDomain(call: Call, id: string): string | null {
  if (inDomain(id, call.domain)) return call.key;
  return isForwarded(call.key) ? `${domainOf(id) ?? ''}.${call.service}` : null;
}

/** The first selector whose entities the policy cannot list, in words. */
function opaqueSelector(call: Call): { text: string; kind: string; id: string } {
  for (let i = 0; i < SELECTOR_KINDS.length; i++) {
    const kind = SELECTOR_KINDS[i] as string;
    for (const id of call.selectors[i] ?? NONE) {
      if (i === 0 && id !== MATCH_ALL && id.includes('.') && !inDomain(id, GROUP_DOMAIN)) continue;
      return { text: `it targets ${kind} ${id}`, kind, id };
    }
  }
  return { text: 'it targets entities the policy cannot list', kind: 'entity_id', id: MATCH_ALL };
}

function hit(
  rule: { readonly ref: RuleRef; readonly label: string },
  why: string,
  target: MatchedTarget | null,
  trace: TraceStep[] | null,
): EntityHit {
  const step: TraceStep = { rule: rule.ref, result: 'matched' };
  if (target !== null) step.target = target.entity_id;
  trace?.push(step);
  return { ref: rule.ref, label: rule.label, why, target };
}

const NONE: readonly string[] = Object.freeze([]);

/** Whether a rule for `audience` (null: every caller) applies to `who` (ADR 0096). */
function forCaller(audience: Audience | null, who: Principal | undefined): boolean {
  return audience === null || inAudience(audience, who);
}
