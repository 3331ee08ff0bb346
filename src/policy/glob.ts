/** Whether `pattern` contains a glob wildcard (`*` or `?`). */
export function isGlob(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

/** A compiled whole-string matcher (a glob or a pattern). */
export interface TextMatcher {
  /** Whether the whole of `text` matches. */
  test(text: string): boolean;
}

/**
 * Compiles a glob once, at load time: `*` matches any run of characters (including none and
 * line breaks), `?` exactly one UTF-16 unit; everything else is literal. `ignoreCase` compares
 * lowercased text.
 *
 * Not a RegExp: `*a*a*a*b` as `^.*a.*a.*a.*b$` backtracks polynomially (12 stars against 30
 * letters took 6 s). The matcher below keeps one resume point, the last `*` seen, so a match
 * costs at most text length times glob length steps, whatever the glob.
 */
export function compileGlob(pattern: string, options: { ignoreCase?: boolean } = {}): TextMatcher {
  const fold = options.ignoreCase === true;
  // Runs of `*` are one `*`: the same matches, fewer resume steps.
  const glob = (fold ? pattern.toLowerCase() : pattern).replace(/\*+/g, '*');
  return { test: (text) => globMatches(glob, fold ? text.toLowerCase() : text) };
}

function globMatches(glob: string, text: string): boolean {
  let g = 0;
  let t = 0;
  let star = -1; // index in `glob` just after the last `*`
  let resume = 0; // where in `text` that `*` would next give up one more character
  while (t < text.length) {
    const c = glob[g];
    if (c === '*') {
      star = ++g;
      resume = t;
    } else if (c !== undefined && (c === '?' || c === text[t])) {
      g++;
      t++;
    } else if (star >= 0) {
      g = star;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (glob[g] === '*') g++;
  return g === glob.length;
}
