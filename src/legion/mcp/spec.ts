import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { jsonTextTooDeepAt } from '../../text/index.js';
import type { ToolAnnotationsInput } from '../define.js';

/**
 * What an MCP server says of one tool, read as an action's spec (ADR 0095). Everything here is
 * the server's word, outside text: descriptions are bounded and stripped of controls, schemas
 * are bounded in size and depth, and the hints are read the way MCP defines their absence.
 */

/** Bounds on what a server's tool list may make of a spec. */
export const MCP_SPEC_LIMITS = {
  /** A description is cut here (the spec takes 2000; the rest is CAESAR's own words). */
  descriptionChars: 1500,
  titleChars: 100,
  /** The JSON text of one input or output schema. */
  schemaBytes: 64 * 1024,
  /** Nesting of one schema's JSON (a tool's input nests 3-5 levels). */
  schemaDepth: 32,
} as const;

// eslint-disable-next-line no-control-regex -- removing control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Outside text made one bounded, printable string (line breaks kept, controls gone). */
export function boundedText(text: string, max: number): string {
  const clean = text.replace(CONTROLS, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/**
 * MCP's hints as CAESAR's annotations. An absent hint means what MCP says it means: not
 * read-only, destructive (unless read-only), not idempotent, open world. A server that declares
 * nothing is therefore treated as the riskiest kind of tool, and the policy's flow rules see it
 * so. Hints are never trusted for security (docs/security.md): the policy decides.
 */
export function annotationsOfMcp(tool: Pick<Tool, 'annotations'>): Required<ToolAnnotationsInput> {
  const a = tool.annotations ?? {};
  const readOnly = a.readOnlyHint === true;
  return {
    readOnly,
    destructive: readOnly ? false : a.destructiveHint !== false,
    idempotent: readOnly ? true : a.idempotentHint === true,
    openWorld: a.openWorldHint !== false,
  };
}

/** The action's description: the server's, bounded, and where it comes from. */
export function descriptionOfMcp(tool: Pick<Tool, 'name' | 'description'>, server: string): string {
  const own = boundedText(tool.description ?? '', MCP_SPEC_LIMITS.descriptionChars);
  const origin = `(MCP tool ${JSON.stringify(tool.name.slice(0, 128))} of the server ${server}.)`;
  return own === '' ? origin : `${own} ${origin}`;
}

/** The action's title: the tool's own or its annotations', bounded; undefined for the default. */
export function titleOfMcp(tool: Pick<Tool, 'title' | 'annotations'>): string | undefined {
  const title = tool.title ?? tool.annotations?.title;
  if (typeof title !== 'string') return undefined;
  const bounded = boundedText(title.replace(/\s+/g, ' '), MCP_SPEC_LIMITS.titleChars);
  return bounded === '' ? undefined : bounded;
}

/**
 * A server's JSON Schema as CAESAR announces it: refused (the reason returned) when its JSON is
 * larger than 64 KiB or nests deeper than 32; its `$schema` (servers write draft-07's URI,
 * which the 2020-12 engine would try to fetch) and `$id` dropped. The keywords a tool input
 * uses mean the same in both drafts; one that does not (`items` as an array) fails the
 * engine's compile, and the tool is refused then, by name.
 */
export function schemaOfMcp(
  schema: Record<string, unknown>,
): { ok: true; schema: Record<string, unknown> } | { ok: false; reason: string } {
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch {
    return { ok: false, reason: 'its schema is not JSON' };
  }
  if (Buffer.byteLength(text) > MCP_SPEC_LIMITS.schemaBytes) {
    return { ok: false, reason: `its schema is larger than ${MCP_SPEC_LIMITS.schemaBytes} bytes` };
  }
  if (jsonTextTooDeepAt(text, MCP_SPEC_LIMITS.schemaDepth) !== undefined) {
    return { ok: false, reason: `its schema nests deeper than ${MCP_SPEC_LIMITS.schemaDepth}` };
  }
  const { $schema: _draft, $id: _id, ...rest } = structuredClone(schema);
  return { ok: true, schema: rest };
}
