import type { z } from 'zod';
import { closest } from '../../text/index.js';

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
      const hint = closest(key, KNOWN_KEYS);
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
