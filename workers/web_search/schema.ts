import { z } from 'zod';
import { BACKENDS } from './config.js';

/** Longest query accepted. Brave and Tavily take at most 400 characters (see backends/). */
const MAX_QUERY_LENGTH = 500;
/** Most results a call may ask for (the policy's `max_results` cap is the same). */
const MAX_RESULTS = 100;

/** A BCP 47 language tag, short form: `en`, `de`, `pt-BR`, `zh-Hant`. */
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,2}$/;

const resultCount = () => z.int().min(1).max(MAX_RESULTS).optional();

/**
 * What a planner sends. The policy reads `query`, `max_results` and `language`. `limit` is the
 * seed design's name for `max_results` (ADR 0088): either is taken, both only when equal.
 */
export const WebSearchInputSchema = z
  .strictObject({
    query: z
      .string()
      .trim()
      .min(1)
      .max(MAX_QUERY_LENGTH)
      .describe(
        'What to search for, as you would type it into a search engine: "nats jetstream consumer ack policy".',
      ),
    max_results: resultCount().describe(
      "How many results to return. Default set by the operator (5); more than the operator's maximum (25 by default) is cut to it, not refused.",
    ),
    language: z
      .string()
      .max(20)
      .regex(LANGUAGE_TAG, 'expected a language tag such as "en", "de" or "pt-BR"')
      .optional()
      .describe(
        'Preferred language of the results, a BCP 47 tag such as "en", "de" or "pt-BR". SearXNG and Brave use it; Tavily ignores it.',
      ),
    limit: resultCount().describe('Another name for max_results; give one of the two.'),
  })
  .superRefine((input, ctx) => {
    const { max_results: max, limit } = input;
    if (max === undefined || limit === undefined || max === limit) return;
    ctx.addIssue({
      code: 'custom',
      path: ['limit'],
      message: `limit (${limit}) and max_results (${max}) are the same field under two names: give one, or the same number`,
    });
  });

/** How many results the call asks for, under either name; undefined: the operator's default. */
export function askedResults(input: WebSearchInput): number | undefined {
  return input.max_results ?? input.limit;
}
export type WebSearchInput = z.output<typeof WebSearchInputSchema>;

const SearchResultSchema = z.strictObject({
  title: z.string().describe('Page title, plain text, at most 200 characters.'),
  url: z.string().describe('The http(s) URL of the page.'),
  domain: z.string().describe('Host name of the URL without a leading "www.".'),
  snippet: z
    .string()
    .describe('What the backend says the page contains, plain text, at most 500 characters.'),
  published: z
    .string()
    .optional()
    .describe('When the page was published or last changed (ISO 8601), if the backend knows.'),
});
export type SearchResult = z.output<typeof SearchResultSchema>;

/** What the tool answers. An empty `results` list means the search ran and found nothing. */
export const WebSearchOutputSchema = z.strictObject({
  query: z.string().describe('The query as searched (trimmed).'),
  backend: z.enum(BACKENDS).describe('The backend that answered.'),
  results: z.array(SearchResultSchema).describe('Best first, no URL twice.'),
  notes: z
    .array(z.string())
    .optional()
    .describe(
      'What went wrong on the way, when something did: backends that failed before this one answered, engines that did not answer.',
    ),
});
export type WebSearchOutput = z.output<typeof WebSearchOutputSchema>;
