import type { z } from 'zod';
import { zodFields } from '../protocol/index.js';
import { formatPath } from '../text/index.js';
import type { ConfigIssue } from './errors.js';
import { closest } from '../text/index.js';
import { knownKeysAt } from './walk.js';

/** Names where a value came from: `(path, isKey)` -> `file:line:col`, an env var, ... */
type SourceOf = (path: readonly PropertyKey[], isKey: boolean) => string;

/**
 * Turns a zod error into config issues, one per bad key, each with its source; the one
 * reading of the error is `zodFields` (src/protocol/field-issues.ts), worded here for a
 * config file: `unknown key 'x' (did you mean 'y'?)`.
 */
export function toConfigIssues(error: z.ZodError, sourceOf: SourceOf): ConfigIssue[] {
  return zodFields(error, { max: Number.POSITIVE_INFINITY }).map((f) => ({
    source: sourceOf(f.path, f.isKey),
    path: formatPath(f.path),
    message: f.unknownKey === undefined ? f.message : unknownKey(f.path.slice(0, -1), f.unknownKey),
  }));
}

function unknownKey(parent: readonly PropertyKey[], key: string): string {
  const hint = closest(key, knownKeysAt(parent));
  return hint === undefined
    ? `unknown key '${key}'`
    : `unknown key '${key}' (did you mean '${hint}'?)`;
}
