import { normalizeServiceCall } from './normalize.js';
import { CALL_SERVICE_TOOL, isGenericToolCall, type ToolCall } from './tool-call.js';

/**
 * The id a call is matched by: `domain.service` (lowercased, as Home Assistant reads it) for a
 * Home Assistant call in any of its shapes, else the tool id; null for a malformed call.
 */
export function toolCallId(call: ToolCall): string | null {
  if (typeof call !== 'object' || call === null) return null;
  if (!isGenericToolCall(call)) return serviceKey(call);
  if (call.tool === CALL_SERVICE_TOOL) return serviceKey(call.input);
  const dot = call.tool.indexOf('.');
  if (dot < 0) return call.tool;
  return serviceKey({ domain: call.tool.slice(0, dot), service: call.tool.slice(dot + 1) });
}

function serviceKey(raw: unknown): string | null {
  const n = normalizeServiceCall(raw);
  return n.ok ? n.call.key : null;
}
