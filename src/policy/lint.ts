import type { CompileContext } from './compile-context.js';
import { meaningOf } from './compile-shared.js';
import type { Candidates, CompiledDenyRule } from './compiled.js';
import { RULE_LISTS } from './decision.js';
import type { PolicyIssue } from './issues.js';
import type { PolicyFile } from './schema.js';

interface Indexes {
  readonly serviceIndex: ReadonlyMap<string, Candidates<never>>;
  readonly serviceGlobs: Candidates<never>;
  readonly toolIndex: ReadonlyMap<string, Candidates<never>>;
  readonly killSwitch: CompiledDenyRule<unknown> | null;
}

type Warn = (path: PropertyKey[], message: string) => void;

/**
 * Warnings that do not stop a policy from loading: duplicate rules, allow rules that can never
 * take effect (an unconditional deny, or an earlier unconditional allow, for the same call
 * wins first) and allow patterns that grant every domain.
 */
export function lintPolicy(ctx: CompileContext, spec: PolicyFile, ix: Indexes): PolicyIssue[] {
  const warnings: PolicyIssue[] = [];
  const warn: Warn = (path, message) => {
    const w = ctx.source.issueAt(path, message);
    if (!warnings.some((x) => x.path === w.path && x.message === w.message)) warnings.push(w);
  };
  duplicates(spec, warn);
  for (const rule of ix.serviceGlobs.allows) {
    if (rule.key.startsWith('*.') || rule.key.startsWith('?')) {
      warn(
        [rule.ref.list ?? '', rule.ref.index ?? 0],
        `${rule.key} allows services of every domain`,
      );
    }
  }
  for (const [key, entry] of ix.serviceIndex) shadowed(entry, key, warn, ix.killSwitch);
  for (const [key, entry] of ix.toolIndex) shadowed(entry, key, warn, null);
  return warnings.sort((a, b) => a.line - b.line || a.column - b.column);
}

/** Two rules of one list that mean the same thing (ids and descriptions aside). */
function duplicates(spec: PolicyFile, warn: Warn): void {
  for (const list of RULE_LISTS) {
    // Only rules for the same subject can be duplicates: compare those alone (cheap on reload).
    const bySubject = new Map<string, number[]>();
    spec[list].forEach((rule: { service?: string; tool?: string; entity_id?: string[] }, index) => {
      const subject = rule.service ?? rule.tool ?? rule.entity_id?.join(',') ?? '';
      const same = bySubject.get(subject);
      if (same) same.push(index);
      else bySubject.set(subject, [index]);
    });
    for (const indexes of bySubject.values()) {
      if (indexes.length < 2) continue;
      const seen = new Map<string, number>();
      for (const index of indexes) {
        const meaning = meaningOf(spec[list][index] as object);
        const first = seen.get(meaning);
        if (first === undefined) seen.set(meaning, index);
        else warn([list, index], `duplicate rule: ${list}[${first}] says the same`);
      }
    }
  }
}

function shadowed(
  entry: Candidates<never>,
  subject: string,
  warn: Warn,
  killSwitch: CompiledDenyRule<unknown> | null,
): void {
  // a rule that names principals or groups shadows nothing: other callers get past it
  const deny = killSwitch ?? entry.denies.find((d) => d.bare && d.who === null);
  let earlier: string | null = null;
  for (const rule of entry.allows) {
    const at: PropertyKey[] = [rule.ref.list ?? '', rule.ref.index ?? 0];
    if (deny) warn(at, `never allows ${subject}: ${deny.ref.id} denies every such call`);
    else if (earlier !== null && !rule.listsAll)
      warn(at, `never used for ${subject}: ${earlier} already allows every such call`);
    if (rule.unconstrained && rule.who === null && earlier === null) earlier = rule.ref.id;
  }
}
