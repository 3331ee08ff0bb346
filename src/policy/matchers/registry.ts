import { calculatorMatcher } from './calculator.js';
import { calendarReadMatcher } from './calendar-read.js';
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
