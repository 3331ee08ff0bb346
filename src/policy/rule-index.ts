import { ACTION_SEPARATOR } from '../protocol/index.js';
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

/**
 * A tool index as evaluation reads it for actions (ADR 0092): the rules of an action's full
 * name `tool.action` include the rules written for its whole tool (`tool: home_assistant`
 * without `actions:`), each list in file order. An action no rule names exactly finds its
 * tool's rules by the tool's own key (`toolRulesFor`).
 */
export function withToolWideRules<C>(
  index: Map<string, Candidates<C>>,
): Map<string, Candidates<C>> {
  for (const [key, entry] of index) {
    const dot = key.indexOf(ACTION_SEPARATOR);
    if (dot < 0) continue;
    const wide = index.get(key.slice(0, dot));
    if (wide === undefined) continue;
    index.set(key, {
      denies: inFileOrder([...entry.denies, ...wide.denies]),
      allows: inFileOrder([...entry.allows, ...wide.allows]),
    });
  }
  return index;
}

/** The rules that apply to a call of `tool` (an action falls back on its tool's rules). */
export function toolRulesFor<C>(
  index: ReadonlyMap<string, Candidates<C>>,
  tool: string,
): Candidates<C> | undefined {
  const exact = index.get(tool);
  if (exact !== undefined) return exact;
  const dot = tool.indexOf(ACTION_SEPARATOR);
  return dot < 0 ? undefined : index.get(tool.slice(0, dot));
}

function inFileOrder<R extends Keyed>(rules: R[]): R[] {
  return rules.sort((a, b) => (a.ref.index ?? 0) - (b.ref.index ?? 0));
}
