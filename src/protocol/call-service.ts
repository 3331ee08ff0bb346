import { z } from 'zod';

/**
 * The wire shape of a Home Assistant service call, the one tool input the brain itself
 * interprets: the policy governs `call_service` by `domain.service` and by its target
 * selectors, so the brain cannot take the shape from the worker's announced schema alone.
 * One definition, used by the brain's input check and by the `call_service` worker.
 */

/** The Home Assistant tool: its calls are governed by `allowed_services`, not `allowed_tools`. */
export const CALL_SERVICE_TOOL = 'call_service';

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
const MAX_SELECTOR_IDS = 50;
/** Largest `data`, as JSON. */
const MAX_DATA_BYTES = 16 * 1024;
/** Deepest nesting of objects and lists in `data`. */
const MAX_DATA_DEPTH = 8;
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
const TargetSchema = z
  .strictObject({
    entity_id: SelectorSchema.optional().describe('Entity ids, like "light.kitchen".'),
    device_id: SelectorSchema.optional().describe('Device registry ids.'),
    area_id: SelectorSchema.optional().describe('Area ids, like "kitchen".'),
    floor_id: SelectorSchema.optional().describe('Floor ids.'),
    label_id: SelectorSchema.optional().describe('Label ids.'),
  })
  .describe('What the service acts on; each selector is one id or a list of ids.');

/** Why `value` is not small, plain JSON, or undefined when it is. */
function jsonProblem(value: unknown): string | undefined {
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
 * belongs in `target`). The brain checks every call against it before the policy judges it
 * (the policy reads `domain.service` and the selectors from it), and the worker checks it
 * again where the call arrives over NATS.
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
