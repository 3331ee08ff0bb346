import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { canonicalJson } from '../../text/index.js';
import { quoted } from './names.js';

/** What of a tool its served spec is made of: a change in any of it changes the spec. */
function specPart(t: Tool): string {
  return canonicalJson({
    description: t.description ?? null,
    title: t.title ?? null,
    inputSchema: t.inputSchema,
    outputSchema: t.outputSchema ?? null,
    annotations: t.annotations ?? null,
  });
}

const few = (names: string[]) =>
  names.slice(0, 8).map(quoted).join(', ') +
  (names.length > 8 ? ` and ${names.length - 8} more` : '');

/**
 * How a server's tool list differs from the tools served from it (after a restart, or at a
 * preflight): undefined when it does not. `picked`: the served tools were chosen with
 * `--tools`, so a tool the server adds is no change to them; `unserved`: tools it listed
 * that were left out (run only as tasks), which are no addition either. The served specs stay the ones from the
 * start (a spec is frozen per instance, ADR 0089): the words say to restart serve-mcp.
 */
export function toolListChanges(
  served: readonly Tool[],
  now: readonly Tool[],
  { picked = false, unserved = [] }: { picked?: boolean; unserved?: readonly string[] } = {},
): string | undefined {
  const before = new Map(served.map((t) => [t.name, specPart(t)]));
  const after = new Map(now.map((t) => [t.name, specPart(t)]));
  // with --tools, a tool the server adds is one the operator did not pick: nothing to serve
  const added = picked
    ? []
    : [...after.keys()].filter((n) => !before.has(n) && !unserved.includes(n));
  const removed = [...before.keys()].filter((n) => !after.has(n));
  const changed = [...before.keys()].filter((n) => after.has(n) && before.get(n) !== after.get(n));
  if (added.length + removed.length + changed.length === 0) return undefined;
  const parts = [
    added.length > 0 ? `added ${few(added)}` : '',
    removed.length > 0 ? `removed ${few(removed)}` : '',
    changed.length > 0 ? `changed ${few(changed)}` : '',
  ].filter((p) => p !== '');
  return (
    `the MCP server's tools changed since serve-mcp started (${parts.join('; ')}): the tools ` +
    'served are still the ones it listed then; restart serve-mcp to serve the new list'
  );
}
