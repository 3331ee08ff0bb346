import { createHash } from 'node:crypto';

/**
 * Canonical JSON (src/text, the one implementation: keys sorted, no whitespace, undefined
 * members dropped) for the ToolSpec sha256, so every host computes the same digest for the
 * same spec.
 */
export { canonicalJson } from '../text/index.js';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
