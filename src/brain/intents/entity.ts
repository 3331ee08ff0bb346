import { canonicalCallable, HA_ENTITIES } from '../../protocol/index.js';
import type { IntentOutcome } from './reply.js';
import type { SlotValue } from './slots.js';

/**
 * Entity slots: "turn on the kitchen light" names a device in words; before the rule's call
 * the brain asks the `ha_entities` tool (through the policy gate, like any call) which entity
 * that is. One clear match fills the slot; several get a question back, none a plain answer:
 * never a guess.
 */

/**
 * The action that resolves spoken device names (workers/ha_entities); a brain whose worker
 * still serves it as `ha_entities` sends the lookup there (ADR 0093).
 */
export const ENTITY_LOOKUP_TOOL = HA_ENTITIES;
/** Candidates named in a "which one?" question. */
const MAX_CANDIDATES = 5;

/** A call to make before the rule's own: resolve the words in `slot`. */
export interface IntentLookup {
  readonly slot: string;
  readonly tool: string;
  readonly input: { readonly query: string; readonly domain: string };
}

type EntitySlot = Extract<SlotValue, { type: 'entity' }>;

/** The lookups a match needs, one per entity slot, in slot order. */
export function lookupsFor(slots: Readonly<Record<string, SlotValue>>): IntentLookup[] {
  const out: IntentLookup[] = [];
  for (const [slot, value] of Object.entries(slots)) {
    if (value.type !== 'entity' || value.value !== '') continue;
    out.push({
      slot,
      tool: ENTITY_LOOKUP_TOOL,
      input: { query: value.word, domain: value.domain },
    });
  }
  return out;
}

/** What a lookup gave: the entity for the slot, or the reply that ends the turn. */
type LookupResult =
  | { readonly ok: true; readonly value: EntitySlot }
  | { readonly ok: false; readonly reply: string };

interface Candidate {
  entity_id: string;
  name: string;
}

/** Reads one `ha_entities` outcome for an entity slot. Never throws. */
export function readLookup(slot: EntitySlot, outcome: IntentOutcome | undefined): LookupResult {
  const what = `the ${slot.domain} "${slot.word}"`;
  if (outcome === undefined) return { ok: false, reply: `I couldn't look up ${what}.` };
  if (outcome.outcome !== 'ok') {
    const why = outcome.reason ?? outcome.error?.message ?? outcome.outcome;
    return { ok: false, reply: `I couldn't look up ${what} in Home Assistant: ${why}` };
  }
  const result = outcome.result as
    { resolved?: unknown; matches?: unknown; from_policy?: unknown } | null | undefined;
  const resolved = candidate(result?.resolved);
  if (resolved !== undefined) {
    return { ok: true, value: { ...slot, value: resolved.entity_id, name: resolved.name } };
  }
  const matches = Array.isArray(result?.matches)
    ? (result.matches as unknown[]).map(candidate).filter((c) => c !== undefined)
    : [];
  if (matches.length === 0) {
    return {
      ok: false,
      // from the policy's list, the reply's clause says where it looked
      reply: `I couldn't find a ${slot.domain} called "${slot.word}"${result?.from_policy === true ? '' : ' in Home Assistant'}.`,
    };
  }
  return { ok: false, reply: whichOne(slot, matches) };
}

/** "Which light do you mean: Kitchen Ceiling (light.kitchen_ceiling) or …?" */
function whichOne(slot: EntitySlot, matches: Candidate[]): string {
  const named = matches.slice(0, MAX_CANDIDATES).map((c) => `${c.name} (${c.entity_id})`);
  const more = matches.length - named.length;
  const list =
    named.length === 1
      ? named[0]
      : `${named.slice(0, -1).join(', ')}${more > 0 ? ', ' : ' or '}${named.at(-1)}`;
  const tail = more > 0 ? ` or ${more} more` : '';
  return `Which ${slot.domain} do you mean by "${slot.word}": ${list}${tail}? Say it with the full name.`;
}

function candidate(v: unknown): Candidate | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const { entity_id: id, name } = v as { entity_id?: unknown; name?: unknown };
  if (typeof id !== 'string' || id === '') return undefined;
  return { entity_id: id, name: typeof name === 'string' && name !== '' ? name : id };
}

/** The clause a reply gets when an entity slot was filled from the policy's own list. */
export const POLICY_LIST_CLAUSE =
  '(matched against the entities your policy names, since ha_entities is not granted)';

/** What the fallback reads: the policy's verdict on a lookup, and the ids it names. */
export interface EntityFallbackPorts {
  /** The policy's outcome for a call, without counting it (the gateway's `explain`). */
  explain(tool: string, input: unknown): { readonly decision: { readonly outcome: string } };
  /** The entity ids the current policy names (`CompiledPolicy.namedEntities`). */
  namedEntities(): readonly string[];
}

/**
 * A lookup answered without `ha_entities` when the policy denies that tool: the spoken name
 * matched against the entity ids the policy itself names (ADR 0088), in the shape an
 * `ha_entities` answer has, so `readLookup` reads it the same way. Undefined when the tool
 * is granted (or its input cannot be judged): the lookup goes through the gate as always.
 */
export function entityFallback(
  ports: EntityFallbackPorts,
): (lookup: { readonly tool: string; readonly input: unknown }) => IntentOutcome | undefined {
  return (lookup) => {
    if (canonicalCallable(lookup.tool) !== ENTITY_LOOKUP_TOOL) return undefined;
    let outcome: string;
    try {
      outcome = ports.explain(lookup.tool, lookup.input).decision.outcome;
    } catch {
      return undefined;
    }
    if (outcome !== 'deny') return undefined;
    const { query, domain } = lookup.input as IntentLookup['input'];
    const found = matchNamed(query, domain, ports.namedEntities());
    return { outcome: 'ok', result: { ...found, from_policy: true } };
  };
}

/**
 * The ids of `domain` whose object id holds every word of `query` (`kitchen` finds
 * `light.kitchen` and `light.kitchen_ceiling`); one that is exactly the words wins alone.
 */
function matchNamed(query: string, domain: string, ids: readonly string[]) {
  const words = query
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const own = ids.filter((id) => id.startsWith(`${domain}.`));
  const exact = own.find((id) => id === `${domain}.${words.join('_')}`);
  if (exact !== undefined) return { resolved: { entity_id: exact, name: exact }, matches: [] };
  const matches = own
    .filter((id) => {
      const parts = id.slice(domain.length + 1).split('_');
      return words.length > 0 && words.every((w) => parts.includes(w));
    })
    .map((id) => ({ entity_id: id, name: id }));
  return matches.length === 1 ? { resolved: matches[0], matches } : { matches };
}
