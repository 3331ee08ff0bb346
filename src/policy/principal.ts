/**
 * Principals (ADR 0096): who a caller is, as the tokens file binds it to a token: a person, a
 * device or an agent (`kids_tablet`, `coding_agent`) and the groups it belongs to. The policy
 * reads it from the evaluation context only; the brain sets it from the verified token, never
 * from a request body, a model or a tool result. Imports nothing: the tokens file's reader
 * (src/brain/api, which a CLI client loads) checks names with the same rule.
 */

/**
 * Principal and group names: lower-case letters, digits, `_`, `.`, `-`; 1-64 characters,
 * starting with a letter or digit. The same rule as token names, since a token without a
 * principal is its own principal.
 */
export const PRINCIPAL_NAME_RE = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

/** The words of {@link PRINCIPAL_NAME_RE} for an error message. */
export const PRINCIPAL_NAME_RULE =
  'expected 1-64 of a-z, 0-9, `_`, `.`, `-`, starting with a-z or 0-9';

/** Groups one principal may belong to. */
export const MAX_GROUPS = 16;

/** The caller a rule is judged for: its principal's name and groups. */
export interface Principal {
  readonly name: string;
  readonly groups: readonly string[];
}

/**
 * Whom a rule applies to (`principals:` and `groups:` on a rule), or whom a held call's
 * approver must be (`approvers:`): a caller is in it when its principal is listed or one of
 * its groups is.
 */
export interface Audience {
  readonly principals: ReadonlySet<string>;
  readonly groups: ReadonlySet<string>;
}

/** Whether `who` is in `audience`; no caller (an explanation with no principal) is in none. */
export function inAudience(audience: Audience, who: Principal | undefined): boolean {
  if (who === undefined) return false;
  if (audience.principals.has(who.name)) return true;
  for (const g of who.groups) if (audience.groups.has(g)) return true;
  return false;
}

/** `principals: [a], groups: [b]` in words: `principal a or group b`. */
export function describeAudience(audience: Audience): string {
  const parts = [
    ...[...audience.principals].map((p) => `principal ${p}`),
    ...[...audience.groups].map((g) => `group ${g}`),
  ];
  return parts.join(' or ');
}
