import { specSha256, type ToolSpec } from '../../protocol/index.js';
import type { ToolEntry } from './entry.js';

/**
 * Colony's ToolEntrySpecMismatch: one field where a catalog entry and its module's live spec
 * disagree, with both values as an operator reads them.
 */
export interface Drift {
  readonly entry: string;
  /** `tool` (the module defines no tool of that name), `capability`, `tags`, `version`, `spec_sha256`. */
  readonly field: 'tool' | 'capability' | 'tags' | 'version' | 'spec_sha256';
  readonly catalog: string;
  readonly module: string;
}

const list = (items: readonly string[]) => `[${items.join(', ')}]`;
const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().join(',') === [...b].sort().join(',');

/**
 * Where `entry` has drifted from `spec`, the spec its module defines now (undefined: the
 * module defines no tool of the entry's name); empty when they agree. A planned stub has no
 * module and never drifts, nor does an MCP server's entry (its tools are the server's to
 * change; serve-mcp's preflight warns when they did, ADR 0095). Pure: the caller imported the
 * module.
 */
export function driftOf(entry: ToolEntry, spec: ToolSpec | undefined): Drift[] {
  if (entry.location === 'planned' || entry.location === 'mcp') return [];
  const at = (field: Drift['field'], catalog: string, module: string): Drift => ({
    entry: entry.name,
    field,
    catalog,
    module,
  });
  if (spec === undefined) return [at('tool', entry.name, 'no such tool')];
  const out: Drift[] = [];
  const capabilities = spec.capabilities?.length ? spec.capabilities : [spec.name];
  if (!capabilities.includes(entry.capability)) {
    out.push(at('capability', entry.capability, list(capabilities)));
  }
  const tags = spec.tags.includes('tool') ? spec.tags : ['tool', ...spec.tags];
  if (!sameSet(entry.tags, tags)) out.push(at('tags', list(entry.tags), list(tags)));
  if (entry.version !== spec.version) out.push(at('version', entry.version, spec.version));
  const sha = specSha256(spec);
  // the spec changed elsewhere (a description, a schema): the digest is all that tells
  if (out.length === 0 && entry.spec_sha256 !== sha) {
    out.push(at('spec_sha256', entry.spec_sha256, sha));
  }
  return out;
}

/** `entry 'weather': tags differ: catalog [tool, web], module [tool, web, home]`. */
export function describeDrift(d: Drift): string {
  if (d.field === 'tool') {
    return `entry '${d.entry}': its module defines no tool named '${d.entry}' any more`;
  }
  const what =
    d.field === 'capability'
      ? "capability is not among the spec's"
      : `${d.field} ${d.field === 'tags' ? 'differ' : 'differs'}`;
  return `entry '${d.entry}': ${what}: catalog ${d.catalog}, module ${d.module}`;
}
