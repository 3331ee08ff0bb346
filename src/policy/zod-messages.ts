import type { z } from 'zod';

/** Every key the policy and cases grammars know, for "did you mean" hints. */
const KNOWN_KEYS: readonly string[] = [
  'version',
  'allowed_services',
  'denied_services',
  'allowed_tools',
  'denied_tools',
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

function unknownKeyMessage(key: string): string {
  const hint = closestKey(key, KNOWN_KEYS);
  return hint === undefined
    ? `unknown key '${key}'`
    : `unknown key '${key}' (did you mean '${hint}'?)`;
}

/** The candidate within edit distance 2 of `key` (the nearest), for "did you mean" hints. */
export function closestKey(key: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const d = editDistance(key.toLowerCase(), candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}
