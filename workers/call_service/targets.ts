import { InvalidInputError } from '../../src/legion/index.js';
import { SELECTOR_KINDS, type CallServiceInput, type SelectorKind } from './schema.js';

/** Home Assistant's "every entity of the domain" selector value. */
const MATCH_ALL = 'all';

const ENTITY_ID_RE = /^[a-z0-9_]+\.[a-z0-9_]+$/;

/** A call as it goes to Home Assistant. */
export interface PreparedCall {
  readonly domain: string;
  readonly service: string;
  /** `domain.service` */
  readonly key: string;
  /** The JSON body: the data with the target selectors merged in as lists. */
  readonly body: Record<string, unknown>;
  /** Selector ids by kind, for the kinds the call uses. */
  readonly selectors: Partial<Record<SelectorKind, string[]>>;
  /** The entity_id targets, without `all`. */
  readonly entityIds: string[];
  /** Every target is an entity id (no device/area/floor/label selector, no `all`). */
  readonly entitiesOnly: boolean;
}

/**
 * Builds the call the way the policy reads it (`src/policy/normalize.ts`), so that what Home
 * Assistant receives is what the policy judged: the ids of `target` and of target-like keys
 * in `data` merged per kind, comma-separated strings split, trimmed, lowercased, de-duplicated.
 * Home Assistant's REST API takes the selectors in the body, next to the data.
 * @throws InvalidInputError for a selector in `data` that is not a string or a list of
 * strings, or an entity id that is not one.
 */
export function prepareCall(input: CallServiceInput): PreparedCall {
  const data: Record<string, unknown> = { ...input.data };
  const selectors: Partial<Record<SelectorKind, string[]>> = {};
  for (const kind of SELECTOR_KINDS) {
    const ids = [
      ...splitIds(input.target?.[kind], `target.${kind}`),
      ...splitIds(data[kind], `data.${kind}`),
    ];
    delete data[kind];
    if (ids.length > 0) selectors[kind] = [...new Set(ids)];
  }
  const entityTargets = selectors.entity_id ?? [];
  for (const id of entityTargets) {
    if (id !== MATCH_ALL && !ENTITY_ID_RE.test(id)) {
      throw new InvalidInputError(
        `'${id}' is not an entity id (domain.object_id, like light.kitchen); look entities up by name with ha_entities`,
        { details: [{ path: 'target.entity_id', message: 'not an entity id' }] },
      );
    }
  }
  const entityIds = entityTargets.filter((id) => id !== MATCH_ALL);
  const otherKinds = SELECTOR_KINDS.some((k) => k !== 'entity_id' && selectors[k] !== undefined);
  return {
    domain: input.domain,
    service: input.service,
    key: `${input.domain}.${input.service}`,
    body: { ...data, ...selectors },
    selectors,
    entityIds,
    entitiesOnly: entityIds.length > 0 && !otherKinds && !entityTargets.includes(MATCH_ALL),
  };
}

/** One id, a comma-separated list, or a list of those; the ids trimmed and lowercased. */
function splitIds(value: unknown, path: string): string[] {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? (value as unknown[]) : [value];
  const out: string[] = [];
  for (const item of items) {
    if (typeof item !== 'string') {
      throw new InvalidInputError(`${path} must be an id or a list of ids`, {
        details: [{ path, message: 'expected a string or a list of strings' }],
      });
    }
    for (const part of item.split(',')) {
      const id = part.trim().toLowerCase();
      if (id !== '') out.push(id);
    }
  }
  return out;
}

/** "area kitchen, device abc": the non-entity targets, for a summary. */
export function describeTargets(call: PreparedCall): string {
  const parts: string[] = [];
  for (const kind of SELECTOR_KINDS) {
    const ids = call.selectors[kind];
    if (ids === undefined) continue;
    const shown = ids.slice(0, 3).join(', ');
    parts.push(
      `${kind.replace('_id', '')} ${shown}${ids.length > 3 ? ` and ${ids.length - 3} more` : ''}`,
    );
  }
  return parts.join('; ');
}
