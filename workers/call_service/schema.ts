import { z } from 'zod';

export { SELECTOR_KINDS, CallServiceInputSchema } from '../../src/legion/index.js';
export type { SelectorKind, CallServiceInput } from '../../src/legion/index.js';

/** Targeted entities whose state is read before and after the call. */
export const MAX_VERIFIED_ENTITIES = 20;

/** One targeted entity, read before and after the call. */
const EntityOutcomeSchema = z.strictObject({
  entity_id: z.string(),
  name: z.string().optional().describe('Its friendly name.'),
  before: z
    .string()
    .nullable()
    .describe(
      'Its state before the call; null when it was not read (an area, device or label target).',
    ),
  after: z
    .string()
    .nullable()
    .describe('Its state after the call; null when it could not be read back.'),
  changed: z
    .boolean()
    .describe('Home Assistant recorded a new state or new attributes for it during the call.'),
});
export type EntityOutcome = z.output<typeof EntityOutcomeSchema>;

/** The answer of `call_service`. */
export const CallServiceResultSchema = z.strictObject({
  service: z.string().describe('The service called, like "light.turn_on".'),
  changed: z.boolean().describe('Some entity changed as a result of the call.'),
  verified: z
    .boolean()
    .describe(
      'Every target was an entity whose state was read before and after; false for area, device, floor and label targets, "all", more than 20 entities, or a failed read-back.',
    ),
  summary: z
    .string()
    .describe(
      'One sentence for the user, like "Kitchen Light: off -> on." or "Kitchen Light stayed off."',
    ),
  entities: z.array(EntityOutcomeSchema).max(MAX_VERIFIED_ENTITIES),
  response: z.unknown().optional().describe("The service's response, when it returned one."),
});
export type CallServiceResult = z.output<typeof CallServiceResultSchema>;
