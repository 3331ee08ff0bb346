import type { z } from 'zod';
import { formatFieldPath as formatPath } from '../../text/index.js';
import { invalidRequest, type FieldIssue } from './errors.js';

/** At most this many field issues are returned; a hostile body cannot make a huge answer. */
const MAX_ISSUES = 20;

/** One `{path, message}` per zod issue; an unknown key is reported at its own path. */
function fieldIssues(error: z.ZodError): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({ path: formatPath([...issue.path, key]), message: `unknown field '${key}'` });
      }
    } else {
      out.push({
        path: formatPath(issue.path),
        message: issue.message.replace(/^Invalid input: /, ''),
      });
    }
  }
  return out.slice(0, MAX_ISSUES);
}

/** Parses `value` with `schema`, or throws a 400 `invalid_request` naming each field. */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidRequest(fieldIssues(parsed.error));
  return parsed.data;
}
