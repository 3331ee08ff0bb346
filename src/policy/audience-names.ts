import type { CompileContext } from './compile-context.js';
import { RULE_LISTS } from './decision.js';
import type { PolicyIssue } from './issues.js';
import { closest, isRecord } from '../text/index.js';

/**
 * The principals and groups rules name (`principals:`, `groups:`, `approvers:`), each with
 * its place, so a check that has the tokens file at hand can say which name no token has
 * (ADR 0096). The policy itself never reads the tokens file: a tokens edit cannot break a
 * policy reload.
 */

/** One name a rule gives under `principals:` or `groups:` (its own, or its approvers'). */
export interface AudienceMention {
  readonly kind: 'principal' | 'group';
  readonly name: string;
  readonly path: string;
  readonly line: number;
  readonly column: number;
}

/** What the tokens file defines: its principals and their groups. */
export interface KnownAudience {
  readonly principals: Iterable<string>;
  readonly groups: Iterable<string>;
}

const KEYS = { principals: 'principal', groups: 'group' } as const;

/** Every principal and group the file's rules name, in file order. */
export function audienceMentions(ctx: CompileContext): AudienceMention[] {
  const doc = isRecord(ctx.source.value) ? ctx.source.value : {};
  const out: AudienceMention[] = [];
  for (const list of RULE_LISTS) {
    const items: unknown = doc[list];
    if (!Array.isArray(items)) continue;
    items.forEach((item: unknown, index) => {
      if (!isRecord(item)) return;
      collect(ctx, item, [list, index], out);
      if (isRecord(item.approvers)) collect(ctx, item.approvers, [list, index, 'approvers'], out);
    });
  }
  return out;
}

function collect(
  ctx: CompileContext,
  holder: Record<string, unknown>,
  at: readonly PropertyKey[],
  out: AudienceMention[],
): void {
  for (const key of ['principals', 'groups'] as const) {
    const names = holder[key];
    if (!Array.isArray(names)) continue;
    names.forEach((name: unknown, i) => {
      if (typeof name !== 'string') return;
      const path = [...at, key, i];
      const { line, column } = ctx.source.locate(path);
      const text = `${String(at[0])}[${String(at[1])}]${at.length > 2 ? '.approvers' : ''}.${key}[${i}]`;
      out.push({ kind: KEYS[key], name, path: text, line, column });
    });
  }
}

/**
 * A warning for each principal or group a rule names that `known` (the tokens file) does
 * not define, with the closest name it does: such a rule applies to no caller yet.
 */
export function unknownAudienceWarnings(
  mentions: readonly AudienceMention[],
  known: KnownAudience,
  tokensFile: string,
): PolicyIssue[] {
  const have = { principal: [...new Set(known.principals)], group: [...new Set(known.groups)] };
  return mentions
    .filter((m) => !have[m.kind].includes(m.name))
    .map((m) => {
      const near = closest(m.name, have[m.kind]);
      const hint = near === undefined ? '' : `; did you mean '${near}'?`;
      const message = `${m.kind} '${m.name}' is in no token of ${tokensFile}, so this names no caller yet${hint}`;
      return { path: m.path, line: m.line, column: m.column, message };
    });
}
