import { readFile, stat } from 'node:fs/promises';
import { MAX_YAML_BYTES } from '../../text/index.js';
import { fileTooLarge, parseIntents } from './compile.js';
import { IntentsError } from './errors.js';
import type { IntentSet } from './intent-set.js';

/**
 * Reads and compiles an intents file. Throws IntentsError: `intents_unreadable` (missing,
 * unreadable, not UTF-8; retryable) or `intents_invalid` (with every problem located).
 */
export async function loadIntents(file: string): Promise<IntentSet> {
  return parseIntents(await readIntentsText(file), file);
}

/**
 * The intents file's text, bounded and checked as UTF-8. Throws IntentsError
 * `intents_unreadable` (missing, unreadable, too large, not UTF-8).
 */
export async function readIntentsText(file: string): Promise<string> {
  let text: string;
  try {
    // Refused before reading, with the reader's own bound and message.
    const { size } = await stat(file);
    if (size > MAX_YAML_BYTES) throw fileTooLarge(file, size);
    text = new TextDecoder('utf-8', { fatal: true }).decode(await readFile(file));
  } catch (err) {
    if (err instanceof IntentsError) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    throw new IntentsError('intents_unreadable', file, reason, err);
  }
  return text;
}
