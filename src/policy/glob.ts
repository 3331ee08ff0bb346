/** Whether `pattern` contains a glob wildcard (`*` or `?`). */
export function isGlob(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

/**
 * Compiles a glob to an anchored RegExp once, at load time: `*` matches any run of
 * characters (including none), `?` exactly one; everything else is literal.
 */
export function globToRegExp(pattern: string, flags = ''): RegExp {
  let source = '';
  for (const ch of pattern) {
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[.+^${}()|[\]\\/-]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, flags);
}
