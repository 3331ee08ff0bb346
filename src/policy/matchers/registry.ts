import { calculatorMatcher } from './calculator.js';
import { calendarReadMatcher } from './calendar-read.js';
import { isRecord } from '../../text/index.js';
import type { ToolMatcher, TypedKey } from './types.js';
import { webSearchMatcher } from './web-search.js';

/**
 * The one registry of shipped tools' matchers. A tool listed here has a closed `input:` block
 * (its typed keys and constraints on its own fields; anything else is a load error); any other
 * tool takes generic constraints on any field.
 */
export const TOOL_MATCHERS: ReadonlyMap<string, ToolMatcher> = new Map(
  [calculatorMatcher, calendarReadMatcher, webSearchMatcher].map((m) => [m.tool, m]),
);

/**
 * `input` as the policy judges it: a value given under one of the tool's aliases (`limit`) moved
 * to the field's own name (`max_results`), so every rule sees it there whichever name the call
 * used. Both names with one value: the field's. Both with different values: left as given (the
 * tool refuses such a call; the typed keys check both). Any other input: as it is.
 */
export function underOwnNames(tool: string, input: unknown): unknown {
  const aliases = TOOL_MATCHERS.get(tool)?.aliases;
  if (aliases === undefined || !isRecord(input)) return input;
  let out: Record<string, unknown> | undefined;
  for (const [alias, field] of Object.entries(aliases)) {
    if (!Object.hasOwn(input, alias)) continue;
    const own = Object.hasOwn(input, field);
    if (own && input[field] !== input[alias]) continue;
    out ??= { ...input };
    out[field] = input[alias];
    delete out[alias];
  }
  return out ?? input;
}

/** The shipped tools that declare `key` as a typed key. */
export function toolsWithTypedKey(key: string): string[] {
  const tools: string[] = [];
  for (const m of TOOL_MATCHERS.values()) if (Object.hasOwn(m.keys, key)) tools.push(m.tool);
  return tools;
}

/** `tool`'s typed key `key`, if it declares one. */
export function typedKeyOf(tool: string, key: string): TypedKey | undefined {
  const keys = TOOL_MATCHERS.get(tool)?.keys;
  return keys !== undefined && Object.hasOwn(keys, key) ? keys[key] : undefined;
}
