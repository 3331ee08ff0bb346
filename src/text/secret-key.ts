/**
 * The one rule for which keys hold secrets, shared by the logger (`src/log`), the audit log's
 * redaction (`src/audit/clamp.ts`), the conversation store and config masking
 * (`caesar config show`, `<KEY>_FILE` env vars). ADR 0044 records it; docs/security.md
 * ("Secrets") states it for operators.
 *
 * A key is secret when, lower-cased with `_ - .` and spaces removed, it contains one of
 * {@link SECRET_KEY_FRAGMENTS} (`client_secret`, `X-Api-Key`, `accessToken`, `Set-Cookie`,
 * `nkeySeed`), unless its words say it names something else:
 *
 * - where a secret is kept, not the secret: its last word is `file`, `path` or `dir`
 *   (`nkey_seed_file`, `token_file`, `tokens_file`, `secrets_dir`); `caesar config show` and
 *   log lines print those paths;
 * - a limit or a count: its first word is `max` or `min`, or its last word is `count`
 *   (`max_tokens`, `min_password_length`, `token_count`).
 *
 * Words are split at `_ - .`, spaces and lower-to-upper case changes (`nkeySeedFile`).
 * Other false positives are accepted (`tokenizer` is redacted); false negatives are what the
 * tests hunt.
 */

export const REDACTED = '[redacted]';

/** Fragments that make a key secret, matched against the key lower-cased with `_-. ` removed. */
export const SECRET_KEY_FRAGMENTS: readonly string[] = Object.freeze([
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'authorization',
  'cookie',
  'credential',
  'privatekey',
  'seed',
]);

/** A key whose last word is one of these names where a secret is kept, not the secret. */
export const SECRET_REFERENCE_WORDS: readonly string[] = Object.freeze(['file', 'path', 'dir']);

const REFERENCE = new Set(SECRET_REFERENCE_WORDS);
const LIMIT_FIRST = new Set(['max', 'min']);
const COUNT_LAST = new Set(['count']);

const keyCache = new Map<string, boolean>();
const KEY_CACHE_MAX = 4096;

/** True when a property name holds a secret under the one rule above. */
export function isSecretKey(key: string): boolean {
  const cached = keyCache.get(key);
  if (cached !== undefined) return cached;
  const secret = decide(key);
  if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
  keyCache.set(key, secret);
  return secret;
}

function decide(key: string): boolean {
  const norm = key.toLowerCase().replace(/[\s_.-]/g, '');
  if (!SECRET_KEY_FRAGMENTS.some((f) => norm.includes(f))) return false;
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_.-]+/)
    .filter((w) => w !== '');
  const first = words[0] ?? '';
  const last = words.at(-1) ?? '';
  return !(REFERENCE.has(last) || LIMIT_FIRST.has(first) || COUNT_LAST.has(last));
}

/** How deep {@link redactSecretKeys} looks by default: a log line's fields and a few levels. */
export const SECRET_KEY_SCAN_DEPTH = 8;

/**
 * `value` with every value under a secret key replaced by {@link REDACTED}, at any depth up to
 * `maxDepth` levels of plain objects and arrays; a subtree deeper than that is replaced by a
 * marker, so nothing unread is printed. Copies only what changes: a value with no secret key
 * is returned as it is. Class instances (an `Error`, a `Date`, a `Buffer`) are left for their
 * serializers.
 */
export function redactSecretKeys(value: unknown, maxDepth = SECRET_KEY_SCAN_DEPTH): unknown {
  return walk(value, 0, maxDepth);
}

function walk(value: unknown, depth: number, max: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    if (value.length === 0) return value;
    if (depth >= max) return tooDeep(max);
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const r = walk(v, depth + 1, max);
      if (r !== v) (out ??= value.slice())[i] = r;
    }
    return out ?? value;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const record = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    if (depth >= max) return tooDeep(max);
    const v = record[key];
    const r = v !== undefined && isSecretKey(key) ? REDACTED : walk(v, depth + 1, max);
    if (r !== v) (out ??= { ...record })[key] = r;
  }
  return out ?? record;
}

function tooDeep(max: number): string {
  return `[not shown: nested deeper than ${max} levels]`;
}
