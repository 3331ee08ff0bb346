import { z } from 'zod';
import { forwardIssues } from '../protocol/index.js';

const MAX_ENTRIES = 4096;

/**
 * Wraps a schema so an input it already accepted is not validated again: a reload re-validates
 * only the rules that changed. Keys are the input's JSON; inputs whose JSON is ambiguous
 * (`null` also stands for NaN and Infinity) are never cached. Issues keep their paths.
 */
export function memoized<T extends z.ZodType>(schema: T): z.ZodType<z.output<T>, unknown> {
  const cache = new Map<string, z.output<T>>();
  return z.unknown().transform((value, ctx) => {
    const key = JSON.stringify(value) ?? 'undefined';
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      forwardIssues(ctx, parsed.error);
      return z.NEVER;
    }
    if (!key.includes('null')) {
      if (cache.size >= MAX_ENTRIES) cache.clear();
      cache.set(key, parsed.data);
    }
    return parsed.data;
  });
}
