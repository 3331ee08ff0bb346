import type { RateSlot } from './compile-context.js';
import type { FlowSettings, RuleFlow } from './compile-flow.js';
import type { FlowVerdict, Obligation, RuleRef } from './decision.js';
import type { TextMatcher } from './glob.js';
import type { PolicyIssue } from './issues.js';
import type { Audience } from './principal.js';
import type { NormalizedServiceCall } from './normalize.js';
import type { ToolMention } from './tool-names.js';
import type { AudienceMention } from './audience-names.js';

/**
 * An allow rule ready for evaluation. `check` returns null when the call is inside it; `now`
 * is the engine's clock, read only by checks that need the time.
 */
export interface CompiledAllowRule<C> {
  readonly ref: RuleRef;
  /** No constraints at all: `check` always passes and is skipped. */
  readonly bare: boolean;
  readonly check: (call: C, now: () => number) => string | null;
  readonly confirm: boolean;
  /** Index into the engine's limiter bank, or -1 when the rule has no window limit. */
  readonly rateSlot: number;
  /** `rate_limit: {calls: N, per: turn}`: N, or 0 when the rule has no per-turn limit. */
  readonly turnLimit: number;
  /** The flow gates for a model's call this rule allows (ADR 0066). */
  readonly flow: RuleFlow;
  /** `principals:`/`groups:`: the callers it applies to; null: every caller (ADR 0096). */
  readonly who: Audience | null;
  /** `approvers:`: who may decide a call it holds; null: any `confirm` token. */
  readonly approvers: Audience | null;
  readonly obligations: readonly Obligation[];
  /** `allowed by <rule> (<file:line:col>)`, built once at load. */
  readonly reason: string;
  /** `<rule> (<file:line:col>)`, for reasons about this rule. */
  readonly label: string;
  /** Service pattern compiled when it is a glob, else null. */
  readonly glob: TextMatcher | null;
  /** Exact `domain.service` or tool id (or the glob source). */
  readonly key: string;
  /** Service rules: the target lists `all` for some selector (only such a rule covers `all`). */
  readonly listsAll: boolean;
  /** No constraints written (for services: every call passes but one naming `all`). */
  readonly unconstrained: boolean;
}

/** A deny rule ready for evaluation. */
export interface CompiledDenyRule<C> {
  readonly ref: RuleRef;
  /** No constraints on the call (it may still name principals or groups: `who`). */
  readonly bare: boolean;
  /** `principals:`/`groups:`: the callers it applies to; null: every caller (ADR 0096). */
  readonly who: Audience | null;
  readonly matches: (call: C) => boolean;
  readonly reason: string;
  readonly label: string;
  readonly glob: TextMatcher | null;
  readonly key: string;
}

/**
 * A `denied_services` rule, also as the entity rule it is for calls of other services that
 * name entities of its domain: its pattern's domain part, and its target overlap alone.
 */
export interface CompiledServiceDeny extends CompiledDenyRule<NormalizedServiceCall> {
  /** The domain part of the service pattern (`lock` for `lock.*`). */
  readonly domain: string;
  /** That domain part compiled when it is a glob (`*.turn_off`), else null. */
  readonly domainGlob: TextMatcher | null;
  /** Whether the call may touch a target the rule names; null when the rule has no target. */
  readonly overlap: ((call: NormalizedServiceCall) => boolean) | null;
}

/** A `denied_entities` rule ready for evaluation. */
export interface CompiledEntityDeny {
  readonly ref: RuleRef;
  readonly label: string;
  /** `principals:`/`groups:`: the callers it applies to; null: every caller (ADR 0096). */
  readonly who: Audience | null;
  /** Whether the rule names the entity `id` (exactly or by a glob). */
  matches(id: string): boolean;
  /** Whether the rule may name an entity of `domain` (its patterns' domain parts). */
  reaches(domain: string): boolean;
  /** Whether the rule may name an entity of a domain other than `domain`. */
  reachesOther(domain: string): boolean;
}

/** The deny rules as they see a call's entities. */
export interface EntityRules {
  /** `denied_entities`, in file order. */
  readonly entities: readonly CompiledEntityDeny[];
  /**
   * `denied_services` that apply to an entity of a domain when the service run on it is not
   * known (a script, a scene): by the literal domain of their pattern, with the rules whose
   * domain part is a glob that matches it merged in, in file order.
   */
  readonly byDomain: ReadonlyMap<string, readonly CompiledServiceDeny[]>;
  /** `denied_services` whose domain part is a glob, for domains not in `byDomain`. */
  readonly globDomains: readonly CompiledServiceDeny[];
  /**
   * The label of the first deny rule (service or entity) that can apply to entities of a
   * domain other than `domain`, or null when there is none.
   */
  foreignDeny(domain: string): string | null;
}

/** The rules that can apply to one service or tool, each list in file order. */
export interface Candidates<C> {
  readonly denies: readonly CompiledDenyRule<C>[];
  readonly allows: readonly CompiledAllowRule<C>[];
}

type ServiceCandidates = Candidates<NormalizedServiceCall>;
type ToolCandidates = Candidates<unknown>;

/** One rule as the CLI lists it. */
export interface RuleSummary {
  readonly ref: RuleRef;
  readonly effect: 'allow' | 'deny';
  /** `domain.service` pattern, tool id, or the entity patterns of a `denied_entities` rule. */
  readonly subject: string;
  readonly description?: string;
  /** An allow rule's own `after_*` keys, as verdicts citing the key; absent when it has none. */
  readonly flow?: readonly FlowVerdict[];
}

/** Where decisions no rule made point: the list an allow entry for the call would go into. */
export interface DefaultDenyRefs {
  readonly tools: RuleRef;
  readonly services: RuleRef;
}

/**
 * A policy compiled for evaluation: immutable, shareable, swapped as one reference on reload.
 * Lookups are Map gets keyed by `domain.service` or tool id; globs were compiled at load.
 */
export interface CompiledPolicy {
  /** The file the policy came from, as given to the loader (`(none)` when none is configured). */
  readonly file: string;
  /** SHA-256 (hex) of the file's bytes. */
  readonly sha256: string;
  readonly rules: readonly RuleSummary[];
  /** Problems that do not stop loading (empty file, unreachable or duplicate rules). */
  readonly warnings: readonly PolicyIssue[];
  /** Set when every call is denied for a reason no rule states (no policy file configured). */
  readonly denyAllReason: string | null;
  /** Every tool the tool rules name, with where (checked against the known tools: tool-names.ts). */
  readonly toolMentions: readonly ToolMention[];
  /** Every principal and group the rules name, with where (checked against a tokens file). */
  readonly audienceMentions: readonly AudienceMention[];
  /** Entity ids the rules name literally (`namedEntities`): the intents' fallback list. */
  readonly namedEntities: readonly string[];
  /** The `flow:` section with its defaults (ADR 0066). */
  readonly flow: FlowSettings;
  /** @internal */
  readonly defaultDeny: DefaultDenyRefs;
  /** @internal exact service keys, with the glob rules that match them merged in file order */
  readonly serviceIndex: ReadonlyMap<string, ServiceCandidates>;
  /** @internal glob service rules, for keys not in `serviceIndex` */
  readonly serviceGlobs: ServiceCandidates;
  /** @internal */
  readonly toolIndex: ReadonlyMap<string, ToolCandidates>;
  /**
   * @internal bare `denied_tools: [call_service]` entries deny every service call (of the
   * callers they name, when they name principals or groups), in file order
   */
  readonly serviceKillSwitches: readonly CompiledDenyRule<unknown>[];
  /** @internal */
  readonly rateSlots: readonly RateSlot[];
  /** @internal deny rules as they see the entities a call names or may reach (ADR 0061) */
  readonly entityRules: EntityRules;
}
