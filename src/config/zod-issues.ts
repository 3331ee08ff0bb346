import type { z } from 'zod';
import { formatPath } from '../text/index.js';
import type { ConfigIssue } from './errors.js';
import { closest } from '../text/index.js';
import { knownKeysAt } from './walk.js';

/** Names where a value came from: `(path, isKey)` -> `file:line:col`, an env var, ... */
type SourceOf = (path: readonly PropertyKey[], isKey: boolean) => string;

/** Turns zod issues into config issues, one per bad key, each with its source. */
export function toConfigIssues(
  issues: readonly z.core.$ZodIssue[],
  sourceOf: SourceOf,
): ConfigIssue[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const path = [...issue.path, key];
        return {
          source: sourceOf(path, true),
          path: formatPath(path),
          message: unknownKey(issue.path, key),
        };
      });
    }
    const isKey = issue.code === 'invalid_key';
    return [
      {
        source: sourceOf(issue.path, isKey),
        path: formatPath(issue.path),
        message: describe(issue),
      },
    ];
  });
}

function unknownKey(parent: readonly PropertyKey[], key: string): string {
  const hint = closest(key, knownKeysAt(parent));
  return hint === undefined
    ? `unknown key '${key}'`
    : `unknown key '${key}' (did you mean '${hint}'?)`;
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_key') {
    const inner = issue.issues[0]?.message ?? issue.message;
    return `invalid key '${String(issue.path.at(-1))}': ${inner}`;
  }
  return issue.message.replace(/^Invalid input: /, '');
}
