import { z } from 'zod';

/** Longest query. */
const MAX_QUERY_LENGTH = 200;
/** @default 10 */
const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 100;

/** The input of `ha_entities`: every key optional; no key lists every entity (up to `limit`). */
export const HaEntitiesInputSchema = z.strictObject({
  query: z
    .string()
    .trim()
    .min(1)
    .max(MAX_QUERY_LENGTH)
    .optional()
    .describe('A name as a person says it: "kitchen light", "the bedroom lamp", "light.kitchen".'),
  domain: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z0-9_]+$/, 'a domain is lowercase letters, digits and _, like light')
    .optional()
    .describe('Only entities of this domain, like "light", "switch", "cover".'),
  area: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe('Only entities in this area (its name, alias or id), like "Kitchen".'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .default(DEFAULT_LIMIT)
    .describe(
      `Most matches returned (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}); total counts all.`,
    ),
});
export type HaEntitiesInput = z.output<typeof HaEntitiesInputSchema>;

const MatchSchema = z.strictObject({
  entity_id: z.string(),
  name: z.string().describe('Its friendly name.'),
  domain: z.string(),
  area: z.string().optional().describe("Its area's name (its own, else its device's)."),
  aliases: z.array(z.string()).optional(),
  state: z.string().describe('Its current state, like "on".'),
  match: z
    .enum(['exact', 'alias', 'partial', 'listed'])
    .describe(
      'exact: the name or id is the query; alias: an alias is; partial: its words contain the query; listed: no query.',
    ),
});
export type Match = z.output<typeof MatchSchema>;

/** The answer of `ha_entities`. */
export const HaEntitiesResultSchema = z.strictObject({
  matches: z.array(MatchSchema).max(MAX_LIMIT).describe('Best first, at most `limit`.'),
  resolved: z
    .strictObject({ entity_id: z.string(), name: z.string() })
    .nullable()
    .describe(
      'The one entity meant, when one stands out: a single exact or alias match, or a single match of any kind.',
    ),
  ambiguous: z
    .boolean()
    .describe(
      'Several entities match and none stands out: ask the user which one (list the matches).',
    ),
  total: z.number().int().min(0).describe('Matches before the limit.'),
  warning: z
    .string()
    .optional()
    .describe('Set when areas and aliases could not be read: matching used names and ids only.'),
});
export type HaEntitiesResult = z.output<typeof HaEntitiesResultSchema>;
