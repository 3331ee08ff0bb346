import type { Candidates, CompiledAllowRule, CompiledDenyRule } from './compiled.js';
import type { TextMatcher } from './glob.js';

interface Keyed {
  readonly key: string;
  readonly glob: TextMatcher | null;
  readonly ref: { readonly index: number | null };
}

/**
 * Builds the lookup for one kind of subject (services or tools): for each exact key, the deny
 * and allow rules that apply to it, each list in file order: the rules written for that key
 * plus the glob rules whose pattern matches it. Built once at load; evaluation is a Map get.
 */
export function indexRules<C>(
  denies: readonly CompiledDenyRule<C>[],
  allows: readonly CompiledAllowRule<C>[],
  skip?: string,
): Map<string, Candidates<C>> {
  const keys = new Set([...denies, ...allows].filter((r) => r.glob === null).map((r) => r.key));
  if (skip !== undefined) keys.delete(skip);
  const denyByKey = byKey(denies, keys);
  const allowByKey = byKey(allows, keys);
  const index = new Map<string, Candidates<C>>();
  for (const key of keys) {
    index.set(key, { denies: denyByKey.get(key) ?? [], allows: allowByKey.get(key) ?? [] });
  }
  return index;
}

function byKey<R extends Keyed>(rules: readonly R[], keys: ReadonlySet<string>): Map<string, R[]> {
  const out = new Map<string, R[]>();
  for (const rule of rules) {
    if (rule.glob !== null) continue;
    const list = out.get(rule.key);
    if (list) list.push(rule);
    else out.set(rule.key, [rule]);
  }
  const globs = rules.filter((r) => r.glob !== null);
  if (globs.length === 0) return out;
  for (const key of keys) {
    const matching = globs.filter((g) => g.glob?.test(key) === true);
    if (matching.length === 0) continue;
    out.set(
      key,
      [...(out.get(key) ?? []), ...matching].sort(
        (a, b) => (a.ref.index ?? 0) - (b.ref.index ?? 0),
      ),
    );
  }
  return out;
}
