import type { Candidate } from './candidates.js';
import { queryWords, withoutDomainWords } from './words.js';

/** How an entity matched: name or id, alias, some words, or no query at all. */
type MatchKind = 'exact' | 'alias' | 'partial' | 'listed';

export interface Matched {
  readonly candidate: Candidate;
  readonly kind: MatchKind;
  /** Lower is better: name words the query did not cover (partial matches). */
  readonly rank: number;
}

interface FindOptions {
  readonly query?: string | undefined;
  readonly domain?: string | undefined;
  /** Only entities in these areas (ids). */
  readonly areaIds?: ReadonlySet<string> | undefined;
}

/** The outcome of a lookup, before the limit is applied. */
interface Found {
  /** Best first: exact, alias, partial (fewest uncovered name words first), listed; then by name. */
  readonly matches: Matched[];
  /** The one best match, or undefined (see {@link resolve}). */
  readonly resolved: Candidate | undefined;
  /** More than one candidate and none stands out: ask the user which one. */
  readonly ambiguous: boolean;
}

/**
 * One fixed order for names, whatever the host's locale. Built by the first search, not at
 * import: a collator maps ICU's collation data, which an idle worker need not hold (ADR 0048).
 */
let byName: Intl.Collator | undefined;
const compareNames = (a: string, b: string): number =>
  (byName ??= new Intl.Collator('en', { sensitivity: 'base', numeric: true })).compare(a, b);

const TIER: Record<MatchKind, number> = { exact: 0, alias: 1, partial: 2, listed: 3 };

/** Query words of at least this length also match the start of a word ("kit" -> "kitchen"). */
const PREFIX_MIN = 3;

/**
 * Finds entities: filters by domain and area, then (with a query) keeps those whose name,
 * object id or alias equals the query (`exact`, `alias`) or whose words contain every query
 * word (`partial`). Without a query every filtered entity is `listed`.
 */
export function findEntities(candidates: readonly Candidate[], options: FindOptions): Found {
  const pool = candidates.filter(
    (c) =>
      (options.domain === undefined || c.domain === options.domain) &&
      (options.areaIds === undefined || (c.area !== undefined && options.areaIds.has(c.area.id))),
  );
  const query = options.query;
  const matches =
    query === undefined
      ? pool.map((candidate) => ({ candidate, kind: 'listed' as const, rank: 0 }))
      : pool.flatMap((c) => {
          const m = matchOne(c, query);
          return m === undefined ? [] : [m];
        });
  matches.sort(
    (a, b) =>
      TIER[a.kind] - TIER[b.kind] ||
      a.rank - b.rank ||
      compareNames(a.candidate.name, b.candidate.name) ||
      (a.candidate.entityId < b.candidate.entityId ? -1 : 1),
  );
  const resolved = resolve(matches);
  return { matches, resolved, ambiguous: resolved === undefined && matches.length > 1 };
}

/**
 * The resolution rule: resolved exactly when one match stands out: a single `exact` or
 * `alias` match (however many partial ones), or a single match of any kind. Two or more
 * exact/alias matches, or two or more matches none of them exact or alias, resolve nothing.
 */
function resolve(matches: readonly Matched[]): Candidate | undefined {
  const strong = matches.filter((m) => m.kind === 'exact' || m.kind === 'alias');
  if (strong.length === 1) return strong[0]?.candidate;
  if (strong.length === 0 && matches.length === 1) return matches[0]?.candidate;
  return undefined;
}

/** How one candidate matches the query, if it does. */
function matchOne(c: Candidate, query: string): Matched | undefined {
  const raw = query.trim().toLowerCase();
  if (raw === c.entityId) return { candidate: c, kind: 'exact', rank: 0 };
  const q = queryWords(query);
  if (q.length === 0) return undefined;
  const core = withoutDomainWords(q, c.domainSet);
  const queryForms = [q.join(' '), core.join(' '), q.join(''), core.join('')];
  if (queryForms.some((f) => c.exactForms.has(f))) return { candidate: c, kind: 'exact', rank: 0 };
  if (queryForms.some((f) => c.aliasForms.has(f))) return { candidate: c, kind: 'alias', rank: 0 };
  const covered = core.every((w) =>
    c.searchWords.some((s) => s === w || (w.length >= PREFIX_MIN && s.startsWith(w))),
  );
  const compact = core.join('');
  const inside = compact.length >= PREFIX_MIN && c.compactForms.some((f) => f.includes(compact));
  if (!covered && !inside) return undefined;
  const uncovered = c.nameWords.filter(
    (w) => !core.some((q2) => w === q2 || w.startsWith(q2)),
  ).length;
  return { candidate: c, kind: 'partial', rank: uncovered };
}
