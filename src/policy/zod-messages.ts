import type { z } from 'zod';
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

/** Short, human messages for zod issues; `key` set when the issue is about a map key. */
export function describeZodIssue(issue: z.core.$ZodIssue): { message: string; key?: string }[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ key, message: unknownKeyMessage(key) }));
  }
  if (issue.code === 'custom' && typeof issue.params?.key === 'string') {
    return [{ key: issue.params.key, message: issue.message }];
  }
  if (issue.code === 'invalid_union') {
    const best = issue.errors.find((branch) => branch.length > 0);
    if (best?.[0]) return describeZodIssue(best[0]);
  }
  return [{ message: issue.message.replace(/^Invalid input: /, '') }];
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
