import { jsonRefusal, readJsonText } from '../../text/index.js';

/** How much of arguments that cannot be read a problem shows. */
const SHOWN = 200;

/**
 * A call's arguments as the model wrote them -> the input object, or what was wrong with
 * them in words the model (and an operator) can act on. Empty or blank arguments are `{}`
 * (some servers send `""` for a tool without parameters); anything else must be JSON and
 * an object.
 */
export function parseCallArguments(
  tool: string,
  raw: string,
): { readonly input: Record<string, unknown> } | { readonly problem: string } {
  if (raw.trim() === '') return { input: {} };
  const read = readJsonText(raw);
  if (!read.ok)
    return { problem: `the arguments for ${tool} are ${jsonRefusal(read)}: ${shown(raw)}` };
  const parsed = read.value;
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
    return { input: parsed as Record<string, unknown> };
  }
  return {
    problem: `the arguments for ${tool} are JSON but not an object (got ${kindOf(parsed)}): ${shown(raw)}`,
  };
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}

/** The first 200 characters, quoted as JSON so control characters stay visible. */
function shown(raw: string): string {
  const head = [...raw].slice(0, SHOWN).join('');
  return JSON.stringify(head) + (head.length < raw.length ? ' (cut)' : '');
}
