import { compileGlob, isGlob, type TextMatcher } from './glob.js';
import { MATCH_ALL, type NormalizedServiceCall } from './normalize.js';
import type { TargetSpec } from './schema.js';
import { SELECTOR_KINDS } from './tool-call.js';

/** The ids of one selector kind a rule lists: exact ids in a Set, globs compiled. */
interface SelectorMatcher {
  readonly exact: ReadonlySet<string>;
  readonly globs: readonly TextMatcher[];
}

/** Per kind (indexed like SELECTOR_KINDS), or null where the rule lists none. */
type CompiledTarget = readonly (SelectorMatcher | null)[];

/** `null` when the call's targets are covered, else why not. */
type TargetCoverage = (call: NormalizedServiceCall) => string | null;

/** Whether the call may touch a target the deny rule names. */
type TargetOverlap = (call: NormalizedServiceCall) => boolean;

function compileTarget(spec: TargetSpec): CompiledTarget {
  return SELECTOR_KINDS.map((kind) => {
    const ids = spec[kind];
    if (!ids) return null;
    return {
      exact: new Set(ids.filter((id) => !isGlob(id))),
      globs: ids.filter(isGlob).map((id) => compileGlob(id)),
    };
  });
}

function matches(m: SelectorMatcher, id: string): boolean {
  if (m.exact.has(id)) return true;
  if (id === MATCH_ALL) return false;
  for (const re of m.globs) if (re.test(id)) return true;
  return false;
}

/**
 * Allow side: a call is covered only when it names at least one target and every id of
 * every selector kind it uses is listed (exactly or by a glob) under the same kind. A kind the
 * rule does not list (say area_id when the rule lists entity_id) is not covered, because the
 * policy cannot know what an area contains. `all` is covered only by a literal `all`.
 */
export function compileCoverage(spec: TargetSpec, ruleName: string): TargetCoverage {
  const target = compileTarget(spec);
  const listed = SELECTOR_KINDS.filter((_, i) => target[i] !== null).join(', ');
  return (call) => {
    if (call.selectorCount === 0)
      return `the call names no target; ${ruleName} allows only ${listed}`;
    for (let i = 0; i < SELECTOR_KINDS.length; i++) {
      const ids = call.selectors[i];
      if (!ids) continue;
      const m = target[i];
      const kind = SELECTOR_KINDS[i] ?? '';
      if (!m) return `target ${kind} is not allowed by ${ruleName} (it allows ${listed})`;
      for (const id of ids) {
        if (!matches(m, id))
          return `target ${kind} ${JSON.stringify(id)} is not allowed by ${ruleName}`;
      }
    }
    return null;
  };
}

/**
 * Deny side: a deny rule applies unless the call is provably outside it. The call is outside
 * only when it names a target, uses no selector kind the rule does not list, and none of its
 * ids match (`all` matches every list).
 */
export function compileOverlap(spec: TargetSpec): TargetOverlap {
  const target = compileTarget(spec);
  return (call) => {
    if (call.selectorCount === 0) return true;
    for (let i = 0; i < SELECTOR_KINDS.length; i++) {
      const ids = call.selectors[i];
      if (!ids) continue;
      const m = target[i];
      if (!m) return true;
      for (const id of ids) if (id === MATCH_ALL || matches(m, id)) return true;
    }
    return false;
  };
}
