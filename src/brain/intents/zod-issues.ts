import type { ZodField } from '../../protocol/index.js';
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

/** An intents file's words for a zod field: a did-you-mean for an unknown key, `missing`. */
export function intentsWords({ unknownKey, issue, message }: ZodField): string {
  if (unknownKey !== undefined) {
    const hint = closest(unknownKey, KNOWN_KEYS);
    return hint
      ? `unknown key '${unknownKey}' (did you mean '${hint}'?)`
      : `unknown key '${unknownKey}'`;
  }
  if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined')) {
    return `missing (expected ${issue.expected})`;
  }
  return message;
}
