import { z } from 'zod';
import {
  CallableNameSchema,
  specSha256,
  ToolTagSchema,
  type ToolSpec,
} from '../../protocol/index.js';

/**
 * The tool catalog (ADR 0090): `<data_dir>/catalog.yaml`, one ToolEntry per tool an operator
 * has (shipped, a module of their own, one served from another host, or only planned), after
 * Colony's ToolEntry. Reading it imports nothing: every field here is a copy of what the
 * tool's live spec said when the entry was added, and `caesar catalog check` (and `caesar up`)
 * hold the copy against the spec again.
 */

/** Bounds of the catalog file; docs/security.md lists them. */
export const CATALOG_LIMITS = {
  /** Size of catalog.yaml in bytes. */
  bytes: 256 * 1024,
  entries: 256,
  purposeChars: 500,
  moduleChars: 1024,
  tags: 32,
  extraEntries: 16,
  extraChars: 200,
} as const;

/**
 * Where an entry's tool comes from: `shipped` (this build's, `module` is its name), `path` (a
 * file, `./weather/tool.js`), `package` (an installed npm package), `host` (served by a worker
 * on another host: nothing here imports it), `planned` (a catalog-only stub, no module), `mcp`
 * (an MCP server's tools served by `caesar legion serve-mcp`, ADR 0095: the entry's `mcp`
 * says where the server is).
 */
export const LOCATIONS = ['shipped', 'path', 'package', 'host', 'planned', 'mcp'] as const;
export type CatalogLocation = (typeof LOCATIONS)[number];

const KEY = /^[a-z][a-z0-9_]{0,31}$/;

/**
 * Where an `mcp` entry's server is (ADR 0095): the stdio command `serve-mcp` starts (after
 * `--`), or the Streamable HTTP URL it connects to; and the server's tools it serves
 * (`--tools`), all when absent. No environment: values there would be secrets in a file an
 * operator shares; the server's settings belong in its own files.
 */
export const McpServerEntrySchema = z
  .strictObject({
    command: z.array(z.string().min(1).max(CATALOG_LIMITS.moduleChars)).min(1).max(64).optional(),
    url: z
      .url({ protocol: /^https?$/, error: 'expected an http or https URL' })
      .max(CATALOG_LIMITS.moduleChars)
      .optional(),
    tools: z.array(z.string().min(1).max(128)).min(1).max(16).optional(),
  })
  .refine((m) => (m.command === undefined) !== (m.url === undefined), {
    message: 'expected one of command: [program, args…] or url: <streamable-http-url>',
  });
export type McpServerEntry = z.infer<typeof McpServerEntrySchema>;

export const ToolEntrySchema = z
  .strictObject({
    /** The callable's name: one entry per action of a tool with several (ADR 0092). */
    name: CallableNameSchema,
    /** One sentence an operator reads: what the tool is for. */
    purpose: z.string().min(1).max(CATALOG_LIMITS.purposeChars),
    location: z.enum(LOCATIONS),
    /** The search key: one of the spec's capabilities (its name when it declares none). */
    capability: z
      .string()
      .regex(KEY, 'expected a capability: a-z first, then a-z, 0-9 or _, at most 32'),
    /** The module's specifier (a path, a package, a shipped name); '' for a planned stub. */
    module: z.string().max(CATALOG_LIMITS.moduleChars),
    /** The spec's version when the entry was added; '' for a planned stub. */
    version: z.string().max(64),
    /** The spec's tags, `tool` always among them. */
    tags: z
      .array(ToolTagSchema)
      .min(1)
      .max(CATALOG_LIMITS.tags)
      .refine((t) => t.includes('tool'), "tags must include 'tool'"),
    /** sha256 of the spec when the entry was added; '' for a planned stub. */
    spec_sha256: z.union([z.literal(''), z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 hex')]),
    /** Anything else an operator keeps about the tool, as a small flat map. */
    extra: z
      .record(
        z.string().regex(KEY, 'expected a key: a-z first, then a-z, 0-9 or _, at most 32'),
        z.string().max(CATALOG_LIMITS.extraChars),
      )
      .refine((m) => Object.keys(m).length <= CATALOG_LIMITS.extraEntries, 'too many entries')
      .optional(),
    /** An `mcp` entry's server (ADR 0095); no other entry has one. */
    mcp: McpServerEntrySchema.optional(),
  })
  .superRefine((e, ctx) => {
    const stub = e.location === 'planned';
    const mcp = e.location === 'mcp';
    if (stub || mcp ? e.module !== '' : e.module === '') {
      const message =
        stub || mcp
          ? `a ${e.location} entry has no module: module: ""`
          : `a ${e.location} entry names its module (a path, a package or a shipped name)`;
      ctx.addIssue({ code: 'custom', path: ['module'], message });
    }
    if (mcp !== (e.mcp !== undefined)) {
      const message = mcp
        ? 'an mcp entry says where its server is: mcp: {command: [program, args…]} or mcp: {url: …}'
        : `only an mcp entry has mcp (this one is ${e.location})`;
      ctx.addIssue({ code: 'custom', path: ['mcp'], message });
    }
    if (!stub && !mcp && e.location !== 'host' && e.spec_sha256 === '') {
      const message = 'expected the sha256 of its spec: `caesar catalog add` writes it';
      ctx.addIssue({ code: 'custom', path: ['spec_sha256'], message });
    }
  });
export type ToolEntry = z.infer<typeof ToolEntrySchema>;

export const CatalogSchema = z.strictObject({
  version: z.literal(1),
  tools: z.array(ToolEntrySchema).max(CATALOG_LIMITS.entries),
});
export type Catalog = z.infer<typeof CatalogSchema>;

/** An empty catalog, what a missing file reads as. */
export const EMPTY_CATALOG: Catalog = { version: 1, tools: [] };

/** Is the entry a catalog-only stub: listed, never served? */
export function isPlanned(entry: Pick<ToolEntry, 'location'>): boolean {
  return entry.location === 'planned';
}

/** A description's first sentence (to its first `. ` or line break), as a default purpose. */
function firstSentence(text: string): string {
  const end = text.search(/\.\s|\n/);
  const first = end < 0 ? text : text.slice(0, end + 1);
  return first.trim().slice(0, CATALOG_LIMITS.purposeChars);
}

/** The spec's tags, with `tool` first when the spec left it out. */
function tagsOf(spec: Pick<ToolSpec, 'tags'>): string[] {
  return spec.tags.includes('tool') ? [...spec.tags] : ['tool', ...spec.tags];
}

/** The entry's capability: the one asked for, else the spec's first, else the tool's name. */
function capabilityOf(spec: Pick<ToolSpec, 'name' | 'capabilities'>, asked?: string): string {
  return asked ?? spec.capabilities?.[0] ?? spec.name;
}

/**
 * The entry a live spec makes, for `caesar catalog add <module>` and for the drift check
 * (which compares an entry with the one its module would make now).
 */
export function entryOfSpec(
  spec: ToolSpec,
  where: { module: string; location: CatalogLocation; capability?: string; purpose?: string },
): ToolEntry {
  return {
    name: spec.name,
    purpose: where.purpose ?? firstSentence(spec.description),
    location: where.location,
    capability: capabilityOf(spec, where.capability),
    module: where.module,
    version: spec.version,
    tags: tagsOf(spec),
    spec_sha256: specSha256(spec),
  };
}

/**
 * The entry of an MCP server served as the tool `name` (`serve-mcp --catalog`): its version
 * and tags from the tool, no sha256 (the server's tool list may change under it; serve-mcp's
 * preflight says when it did).
 */
export function mcpEntry(
  tool: { name: string; version: string; description: string },
  mcp: McpServerEntry,
): ToolEntry {
  return {
    name: tool.name,
    purpose: firstSentence(tool.description),
    location: 'mcp',
    capability: tool.name.slice(0, 32),
    module: '',
    version: tool.version,
    tags: ['tool', 'mcp'],
    spec_sha256: '',
    mcp,
  };
}

/** Where an entry's tool is, as a table cell shows it: `path /x/tool.js`, `mcp npx server`. */
export function entryWhere(e: ToolEntry): string {
  if (e.location === 'planned') return '-';
  if (e.mcp !== undefined) return `mcp ${e.mcp.url ?? (e.mcp.command ?? []).join(' ')}`;
  return `${e.location} ${e.module}`;
}

/** A planned stub: a name and a purpose, nothing served (`caesar catalog add --planned`). */
export function plannedEntry(
  name: string,
  purpose: string,
  more: { tags?: readonly string[]; capability?: string } = {},
): ToolEntry {
  const tags = more.tags ?? [];
  return {
    name,
    purpose,
    location: 'planned',
    capability: more.capability ?? name,
    module: '',
    version: '',
    tags: tags.includes('tool') ? [...tags] : ['tool', ...tags],
    spec_sha256: '',
  };
}
