import { shippedToolNames } from '../../../../workers/index.js';

/**
 * The one rule of which names a tool of the operator's own may not take: a name CAESAR
 * ships a tool under (the brain would see two tools under one name). `serve-tool --module`
 * refuses a module that takes one; `legion new` refuses to scaffold one. Names that break
 * the tool-name pattern are refused before this, by the pattern.
 */
export function takenToolName(name: string): { why: string; suggestion: string } | undefined {
  if (!shippedToolNames().includes(name)) return undefined;
  return { why: 'the name of a tool CAESAR ships', suggestion: `my_${name}`.slice(0, 64) };
}
