import {
  friendlyName,
  type AreaInfo,
  type HaState,
  type Registry,
} from '../../src/clients/home-assistant/index.js';
import { domainWords, withoutDomainWords, words } from './words.js';

/** One entity, with the forms of its names that matching compares. Pure data. */
export interface Candidate {
  readonly entityId: string;
  readonly domain: string;
  readonly name: string;
  readonly state: string;
  readonly area: AreaInfo | undefined;
  readonly aliases: readonly string[];
  /** The domain's words ("light", "lamp"), dropped from both sides when comparing. */
  readonly domainSet: ReadonlySet<string>;
  /** Name forms whose equality with the query is an `exact` match, as joined words. */
  readonly exactForms: ReadonlySet<string>;
  /** The same for aliases: an `alias` match. */
  readonly aliasForms: ReadonlySet<string>;
  /** Every word the entity may be found by (name, object id, aliases, area, domain). */
  readonly searchWords: readonly string[];
  /** The name's own words (without domain words), to rank partial matches. */
  readonly nameWords: readonly string[];
  /** Name and aliases with no spaces, for "livingroom" vs "living room". */
  readonly compactForms: readonly string[];
}

/** Both the full form and the form without domain words, joined and compacted. */
function forms(list: readonly string[], domainSet: ReadonlySet<string>): string[] {
  const core = withoutDomainWords(list, domainSet);
  return [list.join(' '), core.join(' '), list.join(''), core.join('')];
}

/**
 * Builds the candidates from the states and, when available, the registries: the name is
 * the friendly name (else the object id); its exact forms are the name, the object id
 * (`light.kitchen_ceiling` -> "kitchen ceiling") and "<area> <name>", each with and without
 * the domain's words ("Kitchen Light" is also "kitchen" for a light).
 */
export function buildCandidates(
  states: readonly HaState[],
  registry: Registry | undefined,
): Candidate[] {
  return states.map((s) => {
    const dot = s.entity_id.indexOf('.');
    const domain = s.entity_id.slice(0, dot);
    const objectWords = words(s.entity_id.slice(dot + 1));
    const name = friendlyName(s) ?? s.entity_id.slice(dot + 1).replace(/_/g, ' ');
    const nameWords = words(name);
    const area = registry?.areaOf(s.entity_id);
    const areaWords = area ? words(area.name) : [];
    const aliases = registry?.aliasesOf(s.entity_id) ?? [];
    const aliasWords = aliases.map((a) => words(a));
    const domainSet = domainWords(domain);
    const exact = [...forms(nameWords, domainSet), ...forms(objectWords, domainSet)];
    if (
      areaWords.length > 0 &&
      nameWords.slice(0, areaWords.length).join(' ') !== areaWords.join(' ')
    ) {
      exact.push(...forms([...areaWords, ...nameWords], domainSet));
    }
    return {
      entityId: s.entity_id,
      domain,
      name,
      state: s.state,
      area,
      aliases,
      domainSet,
      exactForms: new Set(exact.filter((f) => f !== '')),
      aliasForms: new Set(aliasWords.flatMap((a) => forms(a, domainSet)).filter((f) => f !== '')),
      searchWords: [
        ...new Set([
          ...nameWords,
          ...objectWords,
          ...aliasWords.flat(),
          ...areaWords,
          ...domainSet,
        ]),
      ],
      nameWords: withoutDomainWords(nameWords, domainSet),
      compactForms: [nameWords.join(''), ...aliasWords.map((a) => a.join(''))],
    };
  });
}
