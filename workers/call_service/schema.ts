import { z } from 'zod';

/** Home Assistant target selectors, in the order the policy checks them. */
export const SELECTOR_KINDS = [
  'entity_id',
  'device_id',
  'area_id',
  'floor_id',
  'label_id',
] as const;
export type SelectorKind = (typeof SELECTOR_KINDS)[number];

/** Ids one selector may list. */
export const MAX_SELECTOR_IDS = 50;
/** Largest `data`, as JSON. */
export const MAX_DATA_BYTES = 16 * 1024;
/** Deepest nesting of objects and lists in `data`. */
export const MAX_DATA_DEPTH = 8;
/** Targeted entities whose state is read before and after the call. */
export const MAX_VERIFIED_ENTITIES = 20;

const NAME_RE = /^[a-z0-9_]+$/;

const name = (what: string, example: string) =>
  z
    .string()
    .min(1)
    .max(64)
    .regex(NAME_RE, `${what} is lowercase letters, digits and _, like ${example}`)
    .describe(`Home Assistant ${what}, like "${example}".`);

const SelectorSchema = z.union([
  z.string().min(1).max(255),
  z.array(z.string().min(1).max(255)).min(1).max(MAX_SELECTOR_IDS),
]);

/** `target`: which entities, devices, areas, floors or labels the service acts on. */
export const TargetSchema = z
  .strictObject({
    entity_id: SelectorSchema.optional().describe('Entity ids, like "light.kitchen".'),
    device_id: SelectorSchema.optional().describe('Device registry ids.'),
    area_id: SelectorSchema.optional().describe('Area ids, like "kitchen".'),
    floor_id: SelectorSchema.optional().describe('Floor ids.'),
    label_id: SelectorSchema.optional().describe('Label ids.'),
  })
  .describe('What the service acts on; each selector is one id or a list of ids.');

/** Why `value` is not small, plain JSON, or undefined when it is. */
export function jsonProblem(value: unknown): string | undefined {
  const walk = (v: unknown, depth: number): string | undefined => {
    if (depth > MAX_DATA_DEPTH) return `nests deeper than ${MAX_DATA_DEPTH} levels`;
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return undefined;
    if (typeof v === 'number')
      return Number.isFinite(v) ? undefined : 'holds a number that is not finite';
    if (Array.isArray(v)) {
      for (const x of v as unknown[]) {
        const p = walk(x, depth + 1);
        if (p) return p;
      }
      return undefined;
    }
    if (typeof v === 'object') {
      for (const x of Object.values(v)) {
        const p = walk(x, depth + 1);
        if (p) return p;
      }
      return undefined;
    }
    return `holds a ${typeof v}, which is not JSON`;
  };
  const problem = walk(value, 1);
  if (problem) return problem;
  const bytes = Buffer.byteLength(JSON.stringify(value));
  return bytes > MAX_DATA_BYTES
    ? `is ${bytes} bytes of JSON; at most ${MAX_DATA_BYTES}`
    : undefined;
}

const DataSchema = z
  .record(z.string().min(1).max(100), z.unknown())
  .superRefine((data, ctx) => {
    const problem = jsonProblem(data);
    if (problem) ctx.addIssue({ code: 'custom', message: `data ${problem}` });
  })
  .describe('Service data, like {"brightness_pct": 40}; the service\'s fields.');

/**
 * The input of `call_service`: exactly these keys (a top-level `entity_id` is refused; it
 * belongs in `target`). The same shape the policy judges (`src/policy/tool-call.ts`).
 */
export const CallServiceInputSchema = z.strictObject({
  domain: name('domain', 'light'),
  service: name('service', 'turn_on'),
  target: TargetSchema.nullish(),
  data: DataSchema.nullish(),
  return_response: z
    .boolean()
    .optional()
    .describe(
      "Ask for the service's response, for services that may return one; services that always return one get it without asking.",
    ),
});
export type CallServiceInput = z.output<typeof CallServiceInputSchema>;

/** One targeted entity, read before and after the call. */
export const EntityOutcomeSchema = z.strictObject({
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
