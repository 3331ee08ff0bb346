import { z } from 'zod';
import { TOOL_NAME_PATTERN } from '../protocol/index.js';
import { InvalidToolCallError } from './errors.js';

/** The Home Assistant tool: its calls are governed by `allowed_services`, not `allowed_tools`. */
export const CALL_SERVICE_TOOL = 'call_service';

/** Home Assistant target selectors, in the order the engine checks them. */
export const SELECTOR_KINDS = [
  'entity_id',
  'device_id',
  'area_id',
  'floor_id',
  'label_id',
] as const;
export type SelectorKind = (typeof SELECTOR_KINDS)[number];

/** Tool ids, as the wire protocol checks them (its one definition, `src/protocol/names.ts`). */
export const TOOL_NAME_RE: RegExp = TOOL_NAME_PATTERN;

const SelectorValueSchema = z.union([z.string(), z.array(z.string())]);

/** `target` of a Home Assistant service call: each selector one id or a list of ids. */
export const ServiceTargetSchema = z.strictObject({
  entity_id: SelectorValueSchema.optional(),
  device_id: SelectorValueSchema.optional(),
  area_id: SelectorValueSchema.optional(),
  floor_id: SelectorValueSchema.optional(),
  label_id: SelectorValueSchema.optional(),
});
export type ServiceTarget = z.infer<typeof ServiceTargetSchema>;

/** Raw input of the `call_service` tool, as the LLM or an API client sends it. */
export const CallServiceInputSchema = z.strictObject({
  domain: z.string().min(1),
  service: z.string().min(1),
  target: ServiceTargetSchema.nullish(),
  data: z.record(z.string(), z.unknown()).nullish(),
  /** Ask Home Assistant for the service's response (services that offer one). */
  return_response: z.boolean().optional(),
});

/** A Home Assistant service call (`light.turn_on` on some targets with some data). */
export interface ServiceCall {
  /** Absent: that is what tells a ServiceCall from a GenericToolCall. */
  readonly tool?: never;
  readonly domain: string;
  readonly service: string;
  readonly target?: ServiceTarget | null;
  readonly data?: Readonly<Record<string, unknown>> | null;
  readonly return_response?: boolean;
}

/** A call of any other tool, by id, with its (unvalidated) input. */
export interface GenericToolCall {
  readonly tool: string;
  readonly input: unknown;
}

/**
 * What the policy judges: a service call or a generic tool call, told apart by `tool`. Its id
 * (see `toolCallId`) picks the rules: `domain.service` for Home Assistant calls, whether they
 * come as a ServiceCall, as `{tool: 'call_service', input: {domain, service, ...}}` or as
 * `{tool: 'light.turn_on', input: {target?, data?}}`; the tool id for every other call.
 */
export type ToolCall = ServiceCall | GenericToolCall;

/** Narrows a ToolCall: generic calls carry `tool`, service calls carry `domain`. */
export function isGenericToolCall(call: ToolCall): call is GenericToolCall {
  return typeof (call as Partial<GenericToolCall>).tool === 'string';
}

/**
 * Turns a raw `call_service` tool input `{domain, service, target?, data?}` into a
 * ServiceCall. Throws InvalidToolCallError (code `invalid_input`) when the shape is wrong.
 */
export function toServiceCall(input: unknown): ServiceCall {
  const parsed = CallServiceInputSchema.safeParse(input);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const where = first && first.path.length > 0 ? `${first.path.join('.')}: ` : '';
    throw new InvalidToolCallError(
      CALL_SERVICE_TOOL,
      `${where}${first?.message ?? 'invalid'}`,
      parsed.error,
    );
  }
  return parsed.data;
}
