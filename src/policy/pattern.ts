import { RE2JS, RE2JSException } from 're2js';
import type { TextMatcher } from './glob.js';

/**
 * Constraint `pattern:`s run on RE2 (the re2js port), never on the JavaScript RegExp engine:
 * RE2 matches in time linear in the input, whatever the pattern. A backtracking engine let
 * `(\w+\s?)*` against 33 letters and a `!` hold the event loop for 44 s. The price is RE2's
 * syntax: no backreferences, no lookaround; such patterns are refused at load.
 */

/** Where the refused syntax is explained, named in the load error. */
const SEE = 'RE2 syntax, no backreferences or lookaround: see "pattern" in docs/policy.md';

/** Compiles a pattern that must match the whole string. Throws on what `patternProblem` refuses. */
export function compilePattern(
  source: string,
  options: { ignoreCase?: boolean } = {},
): TextMatcher {
  const re = RE2JS.compile(source, options.ignoreCase === true ? RE2JS.CASE_INSENSITIVE : 0);
  return { test: (text) => re.matches(text) };
}

/** Why `source` is not a pattern this policy can run, or null when it is. */
export function patternProblem(source: string): string | null {
  try {
    RE2JS.compile(source);
    return null;
  } catch (err) {
    if (!(err instanceof RE2JSException)) throw err;
    return `not a valid RE2 regular expression: ${err.message} (${SEE})`;
  }
}
