import { z } from 'zod';
import { DomainPatternSchema } from '../domains.js';
import { show } from '../show.js';
import { typedKey, type ToolMatcher } from './types.js';

/** Most results a rule may grant per search. */
const MAX_RESULTS_CAP = 100;

/**
 * `domain_allowlist`: an obligation on the result. The brain drops every result whose URL host
 * is neither a listed domain nor a subdomain of one (`compileDomainAllowlist`); the query is not
 * checked.
 */
const domainAllowlist = typedKey({
  summary: 'result URLs must be on these domains or below them (filtered after the search)',
  schema: z.array(DomainPatternSchema).min(1),
  governs: [],
  compile: (domains) => ({
    obligation: Object.freeze({
      type: 'filter_result_urls',
      allow_domains: Object.freeze([...domains]) as string[],
    }),
  }),
});

/**
 * `max_results`: a call may not ask for more results than this (`input.max_results`, or
 * `input.limit` where it disagrees with it: the worker refuses such a call, and the policy
 * judges both), and the brain keeps at most this many whatever the backend returns.
 */
const maxResults = typedKey({
  summary: 'at most this many results: a larger input.max_results is refused, results are cut',
  schema: z.int().min(1).max(MAX_RESULTS_CAP),
  governs: ['max_results', 'limit'],
  compile: (max) => ({
    check: (input) => {
      for (const field of ['max_results', 'limit']) {
        if (!Object.hasOwn(input, field)) continue;
        const asked = input[field];
        if (typeof asked !== 'number' || !Number.isInteger(asked)) {
          return `input.${field} must be an integer, got ${show(asked)}`;
        }
        if (asked > max) return `input.${field} ${asked} is above max_results ${max}`;
      }
      return null;
    },
    obligation: Object.freeze({ type: 'limit_results', max_results: max }),
  }),
});

/**
 * web_search (SearXNG, Brave or Tavily): `{query, max_results?, language?}`, and `limit`, the
 * seed design's name for `max_results` (ADR 0088).
 */
export const webSearchMatcher: ToolMatcher = {
  tool: 'web_search',
  fields: ['query', 'max_results', 'language'],
  aliases: { limit: 'max_results' },
  keys: { domain_allowlist: domainAllowlist, max_results: maxResults },
};
