import type { z } from 'zod';
import { jsonRefusal, readJsonText } from '../text/index.js';
import { fieldIssuesOf, summariseFieldIssues } from './field-issues.js';

/**
 * Reads one compact-JSON value an instance declared in its discovery metadata (`caesar.restarts`,
 * `caesar.capacity`): the value, or why it is not one (too long, not JSON, a prototype key,
 * or the fields at fault). Callers ignore a bad value: it never makes an instance invalid.
 */
export function readMetadataJson<S extends z.ZodType>(
  text: string,
  maxChars: number,
  schema: S,
): { ok: true; value: z.output<S> } | { ok: false; problem: string } {
  if (text.length > maxChars) return { ok: false, problem: `longer than ${maxChars} characters` };
  const read = readJsonText(text);
  if (!read.ok) {
    return { ok: false, problem: read.why === 'syntax' ? 'not JSON' : jsonRefusal(read) };
  }
  const parsed = schema.safeParse(read.value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, problem: summariseFieldIssues(fieldIssuesOf(parsed.error)) };
}
