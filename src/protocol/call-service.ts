import { z } from 'zod';

/**
 * The wire shape of a Home Assistant service call, the one tool input the brain itself
 * interprets: the policy governs `call_service` by `domain.service` and by its target
 * selectors, so the brain cannot take the shape from the worker's announced schema alone.
 * One definition, used by the brain's input check and by the `call_service` worker.
 */

/**
 * The Home Assistant service call under its first name, a tool of its own: its calls are
 * governed by `allowed_services`, not `allowed_tools`. Kept for one release beside
 * {@link HA_CALL_SERVICE}, the same call as an action of the `home_assistant` tool.
 */
export const CALL_SERVICE_TOOL = 'call_service';

/** The Home Assistant tool, with two actions (ADR 0093). */
export const HOME_ASSISTANT_TOOL = 'home_assistant';
/** A Home Assistant service call: governed by `allowed_services`, like `call_service`. */
export const HA_CALL_SERVICE = 'home_assistant.call_service';
/** Finding entities by name, area or domain (the `ha_entities` tool's action). */
export const HA_ENTITIES = 'home_assistant.entities';

/**
 * The names the two Home Assistant tools had before they were one tool's actions, and the
 * actions they name now. For one release a worker may still serve them, a policy may still
 * name them (read as the action's name) and a call may still use them (sent to whichever of
 * the two names is served).
 */
export const LEGACY_HA_NAMES: Readonly<Record<string, string>> = Object.freeze({
  [CALL_SERVICE_TOOL]: HA_CALL_SERVICE,
  ha_entities: HA_ENTITIES,
});

/** Whether a call of `tool` is a Home Assistant service call, under either of its names. */
export function isServiceCallTool(tool: string): boolean {
  return tool === HA_CALL_SERVICE || tool === CALL_SERVICE_TOOL;
}

/** The name the policy knows a callable by: a legacy Home Assistant name as its action's. */
export function canonicalCallable(tool: string): string {
  return Object.hasOwn(LEGACY_HA_NAMES, tool) ? LEGACY_HA_NAMES[tool]! : tool;
}

/**
 * The name a call of `tool` goes out under: as called, unless no worker serves that name and
 * one serves the other name of the same Home Assistant callable (ADR 0093).
 */
export function servedName(tool: string, isServed: (name: string) => boolean): string {
  if (isServed(tool)) return tool;
  const other = otherHaName(tool);
  return other !== undefined && isServed(other) ? other : tool;
}

/** The other name of the same Home Assistant callable (old for new, new for old), if any. */
export function otherHaName(tool: string): string | undefined {
  if (Object.hasOwn(LEGACY_HA_NAMES, tool)) return LEGACY_HA_NAMES[tool];
  return Object.keys(LEGACY_HA_NAMES).find((old) => LEGACY_HA_NAMES[old] === tool);
}

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
