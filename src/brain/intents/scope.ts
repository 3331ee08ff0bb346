import { applyFilters, readPath, type Placeholder } from './placeholder.js';
import { SLOT_PROPERTIES, type SlotValue } from './slots.js';
import type { SlotType } from './schema.js';

/**
 * What placeholders can name. Input templates see the slots; replies also see the call:
 * `{tool}`, `{intent}`, `{outcome}`, `{reason}`, `{result...}`, `{error.code}`,
 * `{error.message}`, `{confirmation.id}`, `{confirmation.summary}`,
 * `{confirmation.expires_at}`.
 */
const REPLY_ROOTS: Readonly<Record<string, readonly string[] | 'any'>> = {
  tool: [],
  intent: [],
  outcome: [],
  reason: [],
  result: 'any',
  error: ['code', 'message'],
  confirmation: ['id', 'summary', 'expires_at'],
};

/** Names a slot may not take: replies use them for the call. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(Object.keys(REPLY_ROOTS));

/**
 * Why a placeholder names nothing, or undefined when it is fine. `slots` maps each slot of the
 * intent to its type; `reply` allows the call's names too.
 */
export function placeholderProblem(
  ph: Placeholder,
  slots: ReadonlyMap<string, SlotType>,
  reply: boolean,
): string | undefined {
  const type = slots.get(ph.root);
  if (type !== undefined) {
    const props = SLOT_PROPERTIES[type];
    if (ph.path.length === 0 || (ph.path.length === 1 && props.includes(ph.path[0]!))) {
      return undefined;
    }
    const allowed = props.map((p) => `{${ph.root}.${p}}`).join(', ');
    const article = /^[aeiou]/.test(type) ? 'an' : 'a';
    return `unknown placeholder ${ph.source}: ${article} ${type} slot offers {${ph.root}} and ${allowed}`;
  }
  const paths = reply ? REPLY_ROOTS[ph.root] : undefined;
  if (paths === undefined) {
    const names = [...slots.keys()].map((k) => `{${k}}`);
    const extra = reply ? ', {result...}, {tool}, {reason}, {error...}, {confirmation...}' : '';
    return `unknown placeholder ${ph.source} (known: ${names.join(', ') || 'no slots'}${extra})`;
  }
  if (paths === 'any') return undefined;
  if (ph.path.length === 0 && paths.length === 0) return undefined;
  if (ph.path.length === 1 && paths.includes(ph.path[0]!)) return undefined;
  const allowed = paths.length === 0 ? `{${ph.root}}` : paths.map((p) => `{${ph.root}.${p}}`);
  return `unknown placeholder ${ph.source} (use ${String(allowed)})`;
}

/** The values placeholders read at render time. */
export interface Scope {
  readonly slots: Readonly<Record<string, SlotValue>>;
  /** Reply-only names (`result`, `tool`, ...); absent in input templates. */
  readonly call?: Readonly<Record<string, unknown>>;
}

/** The value of a placeholder, filters applied; undefined when reading it throws. */
export function resolve(ph: Placeholder, scope: Scope): unknown {
  let value: unknown;
  try {
    const slot = Object.hasOwn(scope.slots, ph.root) ? scope.slots[ph.root] : undefined;
    if (slot !== undefined) value = ph.path.length === 0 ? slot.value : readPath(slot, ph.path);
    else if (scope.call !== undefined && Object.hasOwn(scope.call, ph.root)) {
      value = readPath(scope.call[ph.root], ph.path);
    }
  } catch {
    value = undefined; // a result with a throwing getter reads as missing
  }
  return applyFilters(value, ph.filters);
}
