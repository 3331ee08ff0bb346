/**
 * Secret redaction in free text, shared by every store that keeps text a user or a tool wrote
 * (the audit log, the conversation store): credentials inside strings are replaced before
 * anything reaches a database. Which keys hold secrets is the one rule of `secret-key.ts`.
 * False positives are accepted (`tokens: 12` in prose is redacted); false negatives are what
 * the tests hunt (`test/fixtures/secrets-corpus.ts` holds lines of both kinds).
 *
 * Every rule runs in time linear in the text: a rule may only start where a run of word
 * characters starts (or at a fixed prefix such as `Bearer `), and every quantifier that
 * follows a repeatable prefix is bounded. Chat text is untrusted, and a rule that backtracks
 * over `passwordxpasswordx…` would hold the event loop for seconds per message.
 */
import { REDACTED } from './secret-key.js';

/** Key words of a `key=value` pair in free text (the fragments of `secret-key.ts`, as typed). */
const KEY_WORDS =
  'password|passwd|passphrase|secret|token|api[_-]?key|authorization|cookie|credentials?|private[_-]?key|seed';

/** Cheap pre-filter: a string that matches none of these needs no redaction pass. */
const SUSPECT =
  /bearer|basic|eyJ|S[ACNOPUX][A-Z2-7]{20}|sk-|gh[pousr]_|github_pat_|xox[abprs]-|AKIA|ASIA|tvly-|glpat-|:\/\/[^\s/]*@|PRIVATE KEY|password|passwd|passphrase|passcode|\bpin\b|secret|token|api[_-]?key|authorization|cookie|credential|private[_-]?key|seed/i;

/** Words that follow "the password is" in prose rather than a password. */
const NOT_A_PASSWORD =
  'not|no|the|a|an|on|in|at|of|for|to|too|still|now|also|very|same|wrong|incorrect|correct|right|expired|invalid|required|missing|empty|blank|written|taped|stored|saved|set|changed|reset|weak|strong|long|short|below|above|here|there';

type Rule = readonly [RegExp, string];

/** A run of these is one token: a rule only starts where such a run starts. */
const NOT_AFTER_WORD = '(?<![A-Za-z0-9_-])';

/** Ordered: whole blocks first, then prefixed tokens, then phrases and `key=value` pairs. */
const TEXT_RULES: readonly Rule[] = [
  [
    /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    '[redacted private key]',
  ],
  // NATS NKEY seeds: 'S' + key type (user, account, operator, server, cluster, curve) + base32.
  [/\bS[ACNOPUX][A-Z2-7]{54,}\b/g, '[redacted nkey seed]'],
  // JWTs (NATS user JWTs, Home Assistant long-lived tokens, OIDC tokens).
  [
    new RegExp(`${NOT_AFTER_WORD}eyJ[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]*`, 'g'),
    '[redacted jwt]',
  ],
  [/\b(Bearer\s+)[A-Za-z0-9\-._~+/]{8,}=*/gi, `$1${REDACTED}`],
  [/\b(Basic\s+)(?=[A-Za-z0-9+/]*[0-9+/=])[A-Za-z0-9+/]{12,}={0,2}/gi, `$1${REDACTED}`],
  // An AWS access key id, then within a few characters its 40-character secret access key.
  [
    /(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])([^\n]{1,64}?)(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g,
    `${REDACTED}$1${REDACTED}`,
  ],
  // Provider API keys with well-known prefixes.
  [
    new RegExp(
      `${NOT_AFTER_WORD}(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|xox[abprs]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}|tvly-[A-Za-z0-9_-]{16,}|glpat-[A-Za-z0-9_-]{20,})`,
      'g',
    ),
    REDACTED,
  ],
  // user:password@ in URLs.
  [/((?<![a-z0-9+.-])[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+@/gi, `$1${REDACTED}@`],
  // "my password is X", "my wifi passcode was X", "my PIN is 4821": the owner says it is theirs.
  [
    new RegExp(
      `(\\bmy\\s+(?:[A-Za-z-]{1,24}\\s+)?(?:password|passwd|passphrase|passcode|pin(?:\\s+code)?)\\s+(?:is|was)\\s*:?\\s*["']?)(?!(?:${NOT_A_PASSWORD})\\b)(?!\\[redacted)[^\\s"']+`,
      'gi',
    ),
    `$1${REDACTED}`,
  ],
  // "the password is X" without "my": only an X that does not read as a word (a digit or sign).
  [
    new RegExp(
      `(\\b(?:password|passwd|passphrase|passcode)\\s+(?:is|was)\\s*:?\\s*["']?)(?!(?:${NOT_A_PASSWORD})\\b)(?!\\[redacted)(?=[^\\s"']{0,64}[0-9!@#$%^&*_+=~?|\\\\])[^\\s"']{4,}`,
      'gi',
    ),
    `$1${REDACTED}`,
  ],
  // key=value, key: value, "key": "value", ?key=value in free text. The key's tail is bounded
  // so a long run of `passwordpassword…` costs a constant per position.
  [
    new RegExp(
      `((?:${KEY_WORDS})[A-Za-z0-9_-]{0,32}["']?[ \\t]{0,8}[=:][ \\t]{0,8}["']?)(?!\\[redacted)[^\\s"'&,;]+`,
      'gi',
    ),
    `$1${REDACTED}`,
  ],
];

/**
 * Short strings already found clean (rule names, reasons, tool ids repeat on every call).
 * Only clean strings are remembered, never one that held a secret.
 */
const clean = new Set<string>();
const CLEAN_MAX = 4096;
const CLEAN_MAX_CHARS = 256;

/** Redacts credentials inside free text. Returns the input itself when nothing matched. */
export function redactText(text: string): string {
  const short = text.length <= CLEAN_MAX_CHARS;
  if (short && clean.has(text)) return text;
  let out = text;
  if (SUSPECT.test(text)) {
    for (const [pattern, replacement] of TEXT_RULES) out = out.replace(pattern, replacement);
  }
  if (short && out === text) {
    if (clean.size >= CLEAN_MAX) clean.clear();
    clean.add(text);
  }
  return out;
}
