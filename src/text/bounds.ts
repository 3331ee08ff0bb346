// Bounds on untrusted structure, shared by every place where text enters: HTTP bodies, the
// policy, config, intents and token files, and worker envelopes and replies. One number
// each, documented in docs/security.md.

/** Deepest nesting of objects and arrays accepted anywhere (a tool input nests 3-5 levels). */
export const MAX_NESTING_DEPTH = 64;

/**
 * Deepest nesting of a record or answer that wraps values bounded by MAX_NESTING_DEPTH (a
 * tool's input, its result) in levels of its own: an audit row's payload, the brain's
 * answers as the CLI reads them.
 */
export const MAX_WRAPPED_DEPTH = 2 * MAX_NESTING_DEPTH;

/** YAML alias expansions allowed per document: at most this many (`*a` uses). */
export const MAX_YAML_ALIASES = 100;

/**
 * Deepest bracket nesting in JSON text, found in one linear pass that skips strings, so the
 * check runs before `JSON.parse` and before anything that recurses over the result. Returns
 * the character offset where nesting first exceeds `max`, or `undefined` when it never does.
 */
export function jsonTextTooDeepAt(
  text: string,
  max: number = MAX_NESTING_DEPTH,
): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > max) return i;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return undefined;
}

/** Size of a YAML file any reader accepts, in bytes (the policy has its own, lower, setting). */
export const MAX_YAML_BYTES = 1024 * 1024;

/**
 * Nodes all alias uses together may add to a YAML document (an alias adds every node of
 * what it names): bounds the "billion laughs" expansion before anything walks the value.
 */
export const MAX_YAML_ALIAS_NODES = 10_000;
