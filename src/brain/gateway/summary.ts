import { CALL_SERVICE_TOOL, SELECTOR_KINDS } from '../../policy/index.js';

const MAX_SUMMARY_CHARS = 500;

/**
 * One plain-language line saying exactly what a call would do, for the person asked to
 * confirm it: `light.turn_on on entity_id light.kitchen with {"brightness":50}` or
 * `calculator with {"expression":"2+2"}`. Capped at 500 characters.
 */
export function summarizeCall(tool: string, input: unknown): string {
  const text = tool === CALL_SERVICE_TOOL ? serviceSummary(input) : `${tool} with ${json(input)}`;
  return text.length <= MAX_SUMMARY_CHARS ? text : `${text.slice(0, MAX_SUMMARY_CHARS - 1)}…`;
}

function serviceSummary(input: unknown): string {
  const call = (input ?? {}) as {
    domain?: unknown;
    service?: unknown;
    target?: Record<string, unknown> | null;
    data?: unknown;
  };
  const parts = [`Home Assistant ${String(call.domain)}.${String(call.service)}`];
  const targets = SELECTOR_KINDS.flatMap((kind) => {
    const v = call.target?.[kind];
    if (v === undefined || v === null) return [];
    const ids = Array.isArray(v) ? (v as unknown[]) : [v];
    return [`${kind} ${ids.map((id) => (typeof id === 'string' ? id : json(id))).join(', ')}`];
  });
  parts.push(targets.length > 0 ? `on ${targets.join('; ')}` : 'with no target');
  if (call.data !== undefined && call.data !== null && Object.keys(call.data).length > 0) {
    parts.push(`with data ${json(call.data)}`);
  }
  return parts.join(' ');
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'no input';
  } catch {
    return '(unprintable input)';
  }
}
