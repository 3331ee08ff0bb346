import type { ZodField } from '../protocol/index.js';
import { closest } from '../text/index.js';

/** Every key the policy and cases grammars know, for "did you mean" hints. */
const KNOWN_KEYS: readonly string[] = [
  'version',
  'allowed_services',
  'denied_services',
  'allowed_tools',
  'denied_tools',
  'denied_entities',
  'service',
  'tool',
  'id',
  'description',
  'target',
  'data',
  'input',
  'additional_data',
  'additional_input',
  'confirm',
  'rate_limit',
  'calls',
  'per',
  'entity_id',
  'device_id',
  'area_id',
  'floor_id',
  'label_id',
  'equals',
  'enum',
  'glob',
  'pattern',
  'min',
  'max',
  'min_length',
  'max_length',
  'max_items',
  'type',
  'required',
  'forbidden',
  'fields',
  'domain_allowlist',
  'max_results',
  'calendars',
  'max_range_days',
  'cases',
  'name',
  'call',
  'expect',
  'rule',
  'confirmed',
  'advance',
  'domain',
  'flow',
  'after_untrusted',
  'after_private',
  'private_match',
  'changes_state',
  'open_world',
  'shares_private_words',
  'turn',
];

/** A policy or cases file's words for a zod field: an unknown key with a did-you-mean. */
export function policyWords(field: ZodField): string {
  return field.unknownKey === undefined ? field.message : unknownKeyMessage(field.unknownKey);
}

/** Keys only an allow rule takes: on a deny rule they are named as such. */
const ALLOW_RULE_KEYS: ReadonlySet<string> = new Set([
  'confirm',
  'rate_limit',
  'additional_data',
  'additional_input',
  'after_untrusted',
  'after_private',
]);

function unknownKeyMessage(key: string): string {
  if (ALLOW_RULE_KEYS.has(key)) return `unknown key '${key}' here (it is a key of allow rules)`;
  const hint = closest(key, KNOWN_KEYS);
  if (hint === key) return `unknown key '${key}' here`;
  return hint === undefined
    ? `unknown key '${key}'`
    : `unknown key '${key}' (did you mean '${hint}'?)`;
}
