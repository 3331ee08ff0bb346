import type { z } from 'zod';

/** Every key the intents format knows, for "did you mean" hints. */
const KNOWN_KEYS: readonly string[] = [
  'version',
  'intents',
  'name',
  'description',
  'example',
  'tool',
  'sentences',
  'slots',
  'input',
  'reply',
  'replies',
  'type',
  'values',
  'default',
  'max_words',
  'exclude',
  'min',
  'max',
  'integer',
  'failed',
  'denied',
  'rate_limited',
  'confirmation_required',
  'rejected',
];

/** Short messages for a zod issue; `key` set when the issue is about a map key. */
export function describeZodIssue(issue: z.core.$ZodIssue): { message: string; key?: string }[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const hint = closest(key);
      const message = hint
        ? `unknown key '${key}' (did you mean '${hint}'?)`
        : `unknown key '${key}'`;
      return { key, message };
    });
  }
  if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined')) {
    return [{ message: `missing (expected ${issue.expected})` }];
  }
  return [{ message: issue.message.replace(/^Invalid input: /, '') }];
}

/** The known key within edit distance 2 of `key`, nearest first. */
function closest(key: string): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of KNOWN_KEYS) {
    const d = distance(key, candidate, bestDistance);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

/** Levenshtein distance, giving up (returning `limit`) once it reaches `limit`. */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit || a.length > 64 || b.length > 64) return limit;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost));
    }
    prev = row;
  }
  return Math.min(prev[b.length]!, limit);
}
