/** Renders a path of keys and indexes as `a.b[1].c` (the empty path is `''`). */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** {@link formatPath} as an error message names a field: the whole value is `(root)`. */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  return formatPath(path) || '(root)';
}
