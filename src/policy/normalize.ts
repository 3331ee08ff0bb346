import { show } from './show.js';
import { CallServiceInputSchema } from '../protocol/index.js';
import { SELECTOR_KINDS } from './tool-call.js';
import { isRecord } from '../text/index.js';
import { GROUP_DOMAIN, inDomain, SCENE_DOMAIN, SCENE_ENTITY_SERVICES } from './reach.js';

/** Home Assistant's "every entity" selector value; only a rule that lists it covers it. */
export const MATCH_ALL = 'all';

/** Domain and service names after normalisation (Home Assistant lowercases both). */
const NAME_RE = /^[a-z0-9_]+$/;

/**
 * The keys a service call may hold, from the `call_service` input schema. Anything else is
 * refused: a top-level `entity_id` is not read by the rules here but would reach the worker.
 */
const CALL_KEYS: readonly string[] = Object.keys(CallServiceInputSchema.shape);
const CALL_KEY_SET: ReadonlySet<string> = new Set(CALL_KEYS);
const CALL_KEY_LIST = `${CALL_KEYS.slice(0, -1).join(', ')} and ${CALL_KEYS.at(-1) ?? ''}`;

/** Selector values per kind, indexed like SELECTOR_KINDS; null where the call has none. */
type SelectorValues = (readonly string[] | null)[];

/** A service call in the shape the evaluator checks, or the reason it is malformed. */
export interface NormalizedServiceCall {
  readonly domain: string;
  readonly service: string;
  /** `domain.service` */
  readonly key: string;
  readonly selectors: SelectorValues;
  /** Number of selector values over all kinds (0: the call names no target). */
  readonly selectorCount: number;
  /** Some selector is `all` (Home Assistant: every entity). */
  readonly usesAll: boolean;
  /** Some named entity is of another domain than the service's. */
  readonly crossDomain: boolean;
  /**
   * Some target names entities the policy cannot list: an area, device, floor or label id,
   * `all`, an old-style group (`group.*`) or an entity id without a domain.
   */
  readonly opaque: boolean;
  readonly data: Readonly<Record<string, unknown>> | null;
}

/** A service call read for the policy, or why it is malformed. */
export type NormalizeResult =
  | { readonly ok: true; readonly call: NormalizedServiceCall }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads a service call defensively (it may come straight from an LLM) the way Home Assistant
 * will: names trimmed and lowercased; selector ids from `target` and from target-like keys in
 * `data` merged, comma-separated strings split, trimmed and lowercased. Anything Home Assistant
 * would read differently from a plain reading is malformed, never guessed.
 */
export function normalizeServiceCall(raw: unknown): NormalizeResult {
  if (!isRecord(raw)) return bad('a service call must be an object');
  const extra = Object.keys(raw).find((k) => !CALL_KEY_SET.has(k));
  if (extra !== undefined) {
    return bad(
      `unknown key ${show(extra)}; a call holds only ${CALL_KEY_LIST} (ids go under target)`,
    );
  }
  const rr = raw.return_response;
  if (rr !== undefined && typeof rr !== 'boolean')
    return bad('return_response must be true or false');
  const domain = name(raw.domain);
  const service = name(raw.service);
  if (domain === null || service === null) {
    return bad('domain and service must be names like light and turn_on');
  }
  const target = raw.target ?? null;
  const data = raw.data ?? null;
  if (target !== null && !isRecord(target)) return bad('target must be an object');
  if (data !== null && !isRecord(data)) return bad('data must be an object');
  if (target !== null) {
    for (const k in target) {
      if (!(SELECTOR_KINDS as readonly string[]).includes(k)) return bad(`unknown target key ${k}`);
    }
  }
  const selectors: SelectorValues = [null, null, null, null, null];
  let selectorCount = 0;
  let usesAll = false;
  let reach = 0;
  for (let i = 0; i < SELECTOR_KINDS.length; i++) {
    const kind = SELECTOR_KINDS[i] as string;
    const values = mergeValues(target?.[kind], data?.[kind]);
    if (values === undefined) return bad(`${kind} must be a string or a list of strings`);
    selectors[i] = values;
    if (values === null) continue;
    selectorCount += values.length;
    if (values.includes(MATCH_ALL)) usesAll = true;
    reach |= i === 0 ? reachOf(domain, values) : OPAQUE;
  }
  // out of the loop above, which every call runs: a larger function inlines less
  if (domain === SCENE_DOMAIN) {
    const added = addSceneEntities(service, data, selectors);
    if (typeof added === 'string') return bad(added);
    selectorCount += added;
    usesAll ||= selectors[0]?.includes(MATCH_ALL) === true;
    if (selectors[0]) reach |= reachOf(domain, selectors[0]);
  }
  const key = `${domain}.${service}`;
  const crossDomain = (reach & CROSS_DOMAIN) !== 0;
  const opaque = (reach & OPAQUE) !== 0;
  const call = {
    domain,
    service,
    key,
    selectors,
    selectorCount,
    usesAll,
    crossDomain,
    opaque,
    data,
  };
  return { ok: true, call };
}

const CROSS_DOMAIN = 1;
const OPAQUE = 2;

/**
 * CROSS_DOMAIN when an entity id is of another domain than the service's; OPAQUE when one
 * names entities the policy cannot list (`all`, `group.*`, an id without a domain); every
 * selector kind but entity_id is OPAQUE too. A bit set: the hot path allocates nothing.
 */
function reachOf(domain: string, ids: readonly string[]): number {
  let reach = 0;
  for (const id of ids) {
    if (inDomain(id, domain)) continue;
    if (id === MATCH_ALL || inDomain(id, GROUP_DOMAIN) || !id.includes('.')) reach |= OPAQUE;
    else reach |= CROSS_DOMAIN;
  }
  return reach;
}

/**
 * Adds the entities `scene.apply` and `scene.create` name in their data to the entity_id
 * selector: the keys of `entities` (entity id -> state) and the ids of `snapshot_entities`.
 * Returns how many, or a message when they are malformed.
 */
function addSceneEntities(
  service: string,
  data: Readonly<Record<string, unknown>> | null,
  selectors: SelectorValues,
): number | string {
  if (data === null || !SCENE_ENTITY_SERVICES.has(`${SCENE_DOMAIN}.${service}`)) return 0;
  const named: string[] = [];
  const entities = data.entities;
  if (entities !== undefined && entities !== null) {
    if (!isRecord(entities)) return 'data.entities must map entity ids to states';
    for (const id of Object.keys(entities)) named.push(...(splitIds(id) ?? []));
  }
  const snapshot = data.snapshot_entities;
  if (snapshot !== undefined && snapshot !== null) {
    const ids = splitIds(snapshot);
    if (ids === undefined) return 'data.snapshot_entities must be a string or a list of strings';
    named.push(...(ids ?? []));
  }
  if (named.length > 0) selectors[0] = [...(selectors[0] ?? []), ...named];
  return named.length;
}

function mergeValues(a: unknown, b: unknown): string[] | null | undefined {
  if (a === undefined || a === null) return b === undefined || b === null ? null : splitIds(b);
  const first = splitIds(a);
  if (b === undefined || b === null || first === undefined) return first;
  const second = splitIds(b);
  return second === undefined ? undefined : [...(first ?? []), ...(second ?? [])];
}

/** One id, a comma-separated list of ids, or an array of those; `undefined` if malformed. */
function splitIds(value: unknown): string[] | null | undefined {
  const out: string[] = [];
  const items = Array.isArray(value) ? (value as unknown[]) : [value];
  for (const item of items) {
    if (typeof item !== 'string') return undefined;
    for (const part of item.split(',')) {
      const id = part.trim().toLowerCase();
      if (id !== '') out.push(id);
    }
  }
  return out.length === 0 ? null : out;
}

function name(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const n = value.trim().toLowerCase();
  return NAME_RE.test(n) ? n : null;
}

function bad(reason: string): NormalizeResult {
  return { ok: false, reason: `malformed service call: ${reason}` };
}
