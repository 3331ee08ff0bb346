import { SELECTOR_KINDS } from '../../policy/index.js';
import type { CallServiceInput } from '../../protocol/index.js';
import { jsonTextOf } from '../../text/index.js';

const MAX_SUMMARY_CHARS = 500;

/**
 * One plain-language line saying exactly what a call would do, for the person asked to
 * confirm it: `light.turn_on on entity_id light.kitchen with {"brightness":50}` or
 * `calculator with {"expression":"2+2"}`. Capped at 500 characters.
 */
export function summarizeCall(tool: string, input: unknown, service?: CallServiceInput): string {
  const text = service === undefined ? `${tool} with ${json(input)}` : serviceSummary(service);
  return text.length <= MAX_SUMMARY_CHARS ? text : `${text.slice(0, MAX_SUMMARY_CHARS - 1)}…`;
}

/** A `call_service` input its own schema parsed (the admitted call's view). */
function serviceSummary(call: CallServiceInput): string {
  const parts = [`Home Assistant ${call.domain}.${call.service}`];
  const targets = SELECTOR_KINDS.flatMap((kind) => {
    const v = call.target?.[kind];
    if (v === undefined) return [];
    return [`${kind} ${(typeof v === 'string' ? [v] : v).join(', ')}`];
  });
  parts.push(targets.length > 0 ? `on ${targets.join('; ')}` : 'with no target');
  if (call.data !== undefined && call.data !== null && Object.keys(call.data).length > 0) {
    parts.push(`with data ${json(call.data)}`);
  }
  return parts.join(' ');
}

function json(value: unknown): string {
  return jsonTextOf(value, 'no input', '(unprintable input)');
}
