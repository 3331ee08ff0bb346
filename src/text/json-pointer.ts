// JSON Pointer (RFC 6901): a path into a JSON value, `/results/0/url`. Bounded, since the
// pointers read here come from a model's output (a plan_first placeholder, ADR 0069).

/** Longest pointer read, in characters. */
export const MAX_POINTER_CHARS = 256;
/** Most reference tokens (steps) in one pointer. */
export const MAX_POINTER_TOKENS = 32;

/** An array index as RFC 6901 spells it: `0`, or digits without a leading zero. */
const INDEX_RE = /^(?:0|[1-9][0-9]{0,8})$/;

/**
 * A pointer's reference tokens, unescaped (`~1` is `/`, then `~0` is `~`); `""` is the whole
 * value. Refused: a pointer that is not empty and does not start with `/`, a `~` not followed
 * by 0 or 1, and a pointer past the bounds.
 */
export function parseJsonPointer(
  pointer: string,
):
  | { readonly ok: true; readonly tokens: string[] }
  | { readonly ok: false; readonly problem: string } {
  if (pointer.length > MAX_POINTER_CHARS) {
    return { ok: false, problem: `the pointer is longer than ${MAX_POINTER_CHARS} characters` };
  }
  if (pointer === '') return { ok: true, tokens: [] };
  if (!pointer.startsWith('/')) {
    return { ok: false, problem: 'a JSON Pointer must be empty or start with "/"' };
  }
  const raw = pointer.slice(1).split('/');
  if (raw.length > MAX_POINTER_TOKENS) {
    return { ok: false, problem: `the pointer has more than ${MAX_POINTER_TOKENS} steps` };
  }
  if (raw.some((t) => /~(?![01])/.test(t))) {
    return { ok: false, problem: 'in a JSON Pointer "~" must be followed by 0 or 1' };
  }
  return { ok: true, tokens: raw.map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~')) };
}

/** Tokens back to a pointer's text (for messages). */
export function formatJsonPointer(tokens: readonly string[]): string {
  return tokens.map((t) => `/${t.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/**
 * The value `tokens` point at in `value`, or where the path stopped finding one: the pointer
 * up to and including the token that could not be taken. Only own keys of objects and
 * indexes within arrays are followed (never an inherited `constructor`, an array's `length`,
 * or a character of a string); `-` (the end of an array) points at nothing.
 */
export function resolveJsonPointer(
  value: unknown,
  tokens: readonly string[],
):
  | { readonly found: true; readonly value: unknown }
  | { readonly found: false; readonly at: string } {
  let here = value;
  for (const [i, token] of tokens.entries()) {
    const next = step(here, token);
    if (!next.found) return { found: false, at: formatJsonPointer(tokens.slice(0, i + 1)) };
    here = next.value;
  }
  return { found: true, value: here };
}

function step(here: unknown, token: string): { found: true; value: unknown } | { found: false } {
  if (Array.isArray(here)) {
    if (!INDEX_RE.test(token)) return { found: false };
    const index = Number(token);
    return index < here.length ? { found: true, value: here[index] as unknown } : { found: false };
  }
  if (here !== null && typeof here === 'object' && Object.hasOwn(here, token)) {
    return { found: true, value: (here as Record<string, unknown>)[token] };
  }
  return { found: false };
}
