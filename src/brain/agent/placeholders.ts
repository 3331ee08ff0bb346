import type { ToolCallReport } from '../api/index.js';
import { textsOf, type ReadItem } from '../gateway/provenance.js';
import {
  formatFieldPath,
  isRecord,
  MAX_NESTING_DEPTH,
  parseJsonPointer,
  resolveJsonPointer,
} from '../../text/index.js';
import { labelOfReport } from './turn-calls.js';

/**
 * Placeholders in a plan_first plan (ADR 0069): a call of the plan may take a value from the
 * result of an earlier call of the same plan, written where the value goes as
 * `{"$from": 2, "path": "/matches/0/entity_id"}`: the earlier call's place in the plan (1 for
 * the first) and a JSON Pointer (RFC 6901) into its result (`""` or absent: the whole
 * result). A placeholder stands for a whole value, never for part of a string. Only the
 * model's own input is looked through, once: a value taken from a result is data and is never
 * looked through again, so a result cannot add a placeholder, let alone a call.
 *
 * Every part is bounded, since the input is a model's output: how deep and how many values
 * are looked through, how many placeholders one call holds, how long a pointer is, how much a
 * filled value weighs. A placeholder that cannot be filled is the call's `invalid_input`.
 */

/** Placeholders one call may hold. */
export const MAX_PLACEHOLDERS = 16;
/** The most JSON text one filled value may weigh, in characters. */
export const MAX_FILLED_CHARS = 4096;
/** How many values (objects, arrays, scalars) of an input are looked at. */
const MAX_VALUES = 10_000;

const FROM = '$from';
const PATH = 'path';

/** One step of a plan that ran, as a later step's placeholder reads it. */
export interface StepResult {
  readonly tool: string;
  readonly outcome: ToolCallReport['outcome'];
  /** Set when the call answered `ok`. */
  readonly result?: unknown;
  /** The result as content: its label and its texts, the provenance of a value taken from it. */
  readonly item: ReadItem;
}

/** A step's report, kept for the steps after it. */
export function stepResultOf(report: ToolCallReport): StepResult {
  const item: ReadItem = {
    tool: report.tool,
    decisionId: report.decision_id,
    label: labelOfReport(report),
    texts: () => textsOf([report.result, report.error]),
  };
  return {
    tool: report.tool,
    outcome: report.outcome,
    ...(report.outcome === 'ok' && report.result !== undefined ? { result: report.result } : {}),
    item,
  };
}

export type Filled =
  | {
      readonly ok: true;
      /** The input with every placeholder replaced (the input itself when it held none). */
      readonly input: unknown;
      /** The results its values came from, each once, in step order: the call's provenance. */
      readonly read: ReadItem[];
      readonly filled: number;
    }
  | { readonly ok: false; readonly problem: string };

/** Thrown inside the walk only; becomes the `problem` of the answer. */
class Unfillable extends Error {}

/**
 * `input` of step `step` (1 for the first) with its placeholders filled from `done` (the
 * earlier steps that ran, by their number), or why it cannot be. Never throws, never changes
 * `input`.
 */
export function fillPlaceholders(
  input: unknown,
  step: number,
  done: ReadonlyMap<number, StepResult>,
): Filled {
  const walk = new Walk(step, done);
  try {
    const filled = walk.value(input, [], 0);
    if (walk.steps.size === 0) return { ok: true, input, read: [], filled: 0 };
    const read = [...walk.steps].sort((a, b) => a - b).map((n) => done.get(n)!.item);
    return { ok: true, input: filled, read, filled: walk.count };
  } catch (err) {
    if (err instanceof Unfillable) return { ok: false, problem: err.message };
    throw err;
  }
}

class Walk {
  /** The steps values were taken from. */
  readonly steps = new Set<number>();
  count = 0;
  #values = 0;

  constructor(
    readonly step: number,
    readonly done: ReadonlyMap<number, StepResult>,
  ) {}

  value(v: unknown, path: PropertyKey[], depth: number): unknown {
    if (++this.#values > MAX_VALUES) {
      throw new Unfillable(`the input holds more than ${MAX_VALUES} values`);
    }
    if (v === null || typeof v !== 'object') return v;
    // the one nesting bound of everything untrusted (src/text/bounds.ts)
    if (depth >= MAX_NESTING_DEPTH) {
      throw new Unfillable(`the input nests deeper than ${MAX_NESTING_DEPTH} levels`);
    }
    if (Array.isArray(v)) return v.map((item, i) => this.value(item, [...path, i], depth + 1));
    if (!isRecord(v)) return v;
    if (Object.hasOwn(v, FROM)) return this.#fill(v, path);
    // fromEntries defines own keys: a `__proto__` key stays a key, never a prototype
    return Object.fromEntries(
      Object.entries(v).map(([k, item]) => [k, this.value(item, [...path, k], depth + 1)]),
    );
  }

  #fill(placeholder: Record<string, unknown>, path: PropertyKey[]): unknown {
    if (++this.count > MAX_PLACEHOLDERS) {
      throw new Unfillable(`more than ${MAX_PLACEHOLDERS} placeholders in one call`);
    }
    const taken = this.#take(placeholder);
    if ('why' in taken) {
      throw new Unfillable(`the placeholder at ${formatFieldPath(path)} ${taken.why}`);
    }
    this.steps.add(taken.from);
    // a copy: the call's input shares nothing with the result kept for later steps
    // eslint-disable-next-line no-restricted-syntax -- a copy of text `#take` made with JSON.stringify
    return JSON.parse(taken.json) as unknown;
  }

  /** The JSON text of the value a placeholder names, and its step; or why there is none. */
  #take(placeholder: Record<string, unknown>): Taken {
    const extra = Object.keys(placeholder).filter((k) => k !== FROM && k !== PATH);
    if (extra.length > 0) {
      return { why: `holds only "${FROM}" and "${PATH}"; this one also has ${quoted(extra)}` };
    }
    const from = this.#stepOf(placeholder[FROM]);
    if (typeof from === 'string') return { why: from };
    const pointer = placeholder[PATH] ?? '';
    if (typeof pointer !== 'string')
      return { why: `is wrong: "${PATH}" must be a JSON Pointer string` };
    const parsed = parseJsonPointer(pointer);
    if (!parsed.ok) return { why: `is wrong: ${parsed.problem}` };
    const source = this.done.get(from);
    if (source === undefined)
      return { why: `is wrong: step ${from} did not run, so it has no result` };
    return valueAt(source, from, pointer, parsed.tokens);
  }

  /** The step a placeholder's `$from` names, or why it names none. */
  #stepOf(from: unknown): number | string {
    if (this.step <= 1) {
      return 'is wrong: the first step of a plan can take no value: no step comes before it';
    }
    if (typeof from === 'number' && Number.isInteger(from) && from >= 1 && from < this.step) {
      return from;
    }
    const got = JSON.stringify(from) ?? String(from);
    return `must name an earlier step of the plan by its number (1 to ${this.step - 1}); got ${got}`;
  }
}

type Taken = { readonly from: number; readonly json: string } | { readonly why: string };

/** The value at `pointer` in step `from`'s result, as bounded JSON text. */
function valueAt(
  source: StepResult,
  from: number,
  pointer: string,
  tokens: readonly string[],
): Taken {
  const name = `step ${from} (${source.tool})`;
  if (source.result === undefined) {
    return {
      why: `is wrong: ${name} has no result to take a value from (outcome: ${source.outcome})`,
    };
  }
  const found = resolveJsonPointer(source.result, tokens);
  if (!found.found)
    return { why: `is wrong: ${name} has nothing at ${pointer} (nothing at ${found.at})` };
  const json = JSON.stringify(found.value) ?? 'null';
  if (json.length > MAX_FILLED_CHARS) {
    const what = pointer === '' ? 'the whole result' : `the value at ${pointer}`;
    return {
      why: `is too big: ${what} of ${name} is ${json.length} characters as JSON; a placeholder takes at most ${MAX_FILLED_CHARS}`,
    };
  }
  return { from, json };
}

function quoted(keys: readonly string[]): string {
  return keys
    .slice(0, 4)
    .map((k) => JSON.stringify(k.slice(0, 64)))
    .join(', ');
}
