import type { z } from 'zod';
import { fieldIssuesOf } from '../../protocol/index.js';
import { invalidRequest } from './errors.js';

/**
 * Parses `value` with `schema`, or throws a 400 `invalid_request` naming each field (at most
 * 20; an unknown key at its own path), so a hostile body cannot make a huge answer.
 */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidRequest(fieldIssuesOf(parsed.error));
  return parsed.data;
}
