import {
  CALL_SERVICE_TOOL,
  canonicalCallable,
  isServiceCallTool,
  CALLABLE_NAME_PATTERN,
  SELECTOR_KINDS,
  type SelectorKind,
} from '../protocol/index.js';

// The call_service wire shape lives in src/protocol (one definition, checked by the brain
// before the policy judges a call, and by the worker); the policy names its parts.
export { CALL_SERVICE_TOOL, SELECTOR_KINDS, canonicalCallable, isServiceCallTool };

/**
 * Tool ids (a tool's name, or an action's `tool.action`), as the wire protocol checks them
 * (its one definition, `src/protocol/names.ts`).
 */
export const TOOL_NAME_RE: RegExp = CALLABLE_NAME_PATTERN;

/** `target` of a Home Assistant service call: each selector one id or a list of ids. */
type ServiceTarget = { readonly [K in SelectorKind]?: string | readonly string[] };

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
 * picks the rules: `domain.service` for Home Assistant calls, whether they
 * come as a ServiceCall, as `{tool: 'call_service', input: {domain, service, ...}}` or as
 * `{tool: 'light.turn_on', input: {target?, data?}}`; the tool id for every other call.
 */
export type ToolCall = ServiceCall | GenericToolCall;

/** Narrows a ToolCall: generic calls carry `tool`, service calls carry `domain`. */
export function isGenericToolCall(call: ToolCall): call is GenericToolCall {
  return typeof (call as Partial<GenericToolCall>).tool === 'string';
}
