export { createHaEntitiesTool, haEntitiesTool } from './tool.js';
export {
  DEFAULT_LIMIT,
  HaEntitiesInputSchema,
  HaEntitiesResultSchema,
  MatchSchema,
  MAX_LIMIT,
  MAX_QUERY_LENGTH,
} from './schema.js';
export type { HaEntitiesInput, HaEntitiesResult, Match } from './schema.js';
export { buildCandidates } from './candidates.js';
export type { Candidate } from './candidates.js';
export { findEntities, matchOne, resolve } from './match.js';
export type { FindOptions, Found, Matched, MatchKind } from './match.js';
export { resolveArea } from './areas.js';
export { domainWords, normalise, queryWords, words } from './words.js';
