import { compileDomainAllowlist, type Obligation } from '../../policy/index.js';

type ObligationOutcome =
  { ok: true; result: unknown; applied: AppliedObligation[] } | { ok: false; message: string };

/** What an obligation did to a result, for the audit row. */
interface AppliedObligation {
  readonly type: Obligation['type'];
  readonly dropped: number;
}

/**
 * Applies a decision's obligations to a tool result. Both obligations defined today act on
 * a list of results: `result.results` (the shape of `web_search`), or the result itself
 * when it is an array. A result of any other shape cannot honour them, so the call fails
 * rather than pass unfiltered data on. An obligation type the brain does not know is refused
 * before dispatch (see `unknownObligation`), never ignored here.
 */
export function applyObligations(
  result: unknown,
  obligations: readonly Obligation[],
): ObligationOutcome {
  if (obligations.length === 0) return { ok: true, result, applied: [] };
  const list = resultList(result);
  if (list === undefined) {
    return {
      ok: false,
      message: `the policy requires ${obligations.map((o) => o.type).join(', ')}, but the result has no list of results to apply it to`,
    };
  }
  let items = list;
  const applied: AppliedObligation[] = [];
  for (const obligation of obligations) {
    const before = items.length;
    items = applyOne(items, obligation);
    applied.push({ type: obligation.type, dropped: before - items.length });
  }
  const out = Array.isArray(result) ? items : { ...(result as object), results: items };
  return { ok: true, result: out, applied };
}

/** The first obligation type this brain cannot apply, if any. */
export function unknownObligation(obligations: readonly { type: string }[]): string | undefined {
  return obligations.find((o) => !KNOWN.has(o.type))?.type;
}

const KNOWN = new Set<string>(['filter_result_urls', 'limit_results']);

function applyOne(items: unknown[], obligation: Obligation): unknown[] {
  switch (obligation.type) {
    case 'filter_result_urls': {
      const allowed = compileDomainAllowlist(obligation.allow_domains);
      return items.filter((item) => {
        const url = (item as { url?: unknown } | null)?.url;
        return typeof url === 'string' && allowed(url);
      });
    }
    case 'limit_results':
      return items.slice(0, obligation.max_results);
  }
}

function resultList(result: unknown): unknown[] | undefined {
  if (Array.isArray(result)) return result as unknown[];
  if (typeof result !== 'object' || result === null) return undefined;
  const results = (result as { results?: unknown }).results;
  return Array.isArray(results) ? (results as unknown[]) : undefined;
}
