import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { boundedText } from './spec.js';

/**
 * An MCP tool's answer as a CAESAR result (ADR 0095): its content blocks, bounded, and its
 * structured content as the server gave it (the SDK client checked it against the tool's
 * output schema). Binary data (images, audio, blobs) is not carried: a block says its type,
 * MIME type and size instead, so a result stays small text a model and the audit log can take.
 */

export const MCP_RESULT_LIMITS = {
  /** Content blocks kept; the rest are dropped and `truncated` is set. */
  blocks: 64,
  /** Characters of text kept across all blocks. */
  textChars: 200_000,
  /** A URI or a name in a block. */
  fieldChars: 2048,
  /** The message of an error answer. */
  errorChars: 2000,
} as const;

/** One content block as CAESAR carries it. */
export interface ResultBlock {
  type: 'text' | 'image' | 'audio' | 'resource_link' | 'resource';
  text?: string;
  mime_type?: string;
  /** Size of binary data that was not carried, in bytes (base64 decoded). */
  bytes?: number;
  uri?: string;
  name?: string;
}

export interface McpToolResult {
  content: ResultBlock[];
  structured_content?: Record<string, unknown>;
  /** Set when blocks or text were cut to the bounds above. */
  truncated?: true;
}

const STRING = { type: 'string' } as const;

/** The action's output schema: the blocks, and `structured_content` as the server declared it. */
export function resultSchema(outputSchema?: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['content'],
    properties: {
      content: {
        type: 'array',
        maxItems: MCP_RESULT_LIMITS.blocks,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['type'],
          properties: {
            type: { enum: ['text', 'image', 'audio', 'resource_link', 'resource'] },
            text: STRING,
            mime_type: STRING,
            bytes: { type: 'integer', minimum: 0 },
            uri: STRING,
            name: STRING,
          },
        },
      },
      structured_content: outputSchema ?? { type: 'object' },
      truncated: { const: true },
    },
  };
}

const field = (s: unknown) =>
  typeof s === 'string' ? s.slice(0, MCP_RESULT_LIMITS.fieldChars) : undefined;
const base64Bytes = (data: unknown) =>
  typeof data === 'string' ? Math.floor((data.replace(/=+$/, '').length * 3) / 4) : 0;

/** Drops undefined fields, so the block matches the schema's closed shape. */
function defined(block: ResultBlock): ResultBlock {
  return Object.fromEntries(
    Object.entries(block).filter(([, v]) => v !== undefined),
  ) as unknown as ResultBlock;
}

/** One MCP content block, its text cut to `budget` characters. */
function blockOf(b: CallToolResult['content'][number], budget: number): ResultBlock {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text.slice(0, budget) };
    case 'image':
    case 'audio':
      return { type: b.type, mime_type: field(b.mimeType), bytes: base64Bytes(b.data) };
    case 'resource_link':
      return { type: 'resource_link', uri: field(b.uri), name: field(b.name) };
    case 'resource': {
      const r = b.resource as { uri?: unknown; mimeType?: unknown; text?: unknown; blob?: unknown };
      return typeof r.text === 'string'
        ? {
            type: 'resource',
            uri: field(r.uri),
            mime_type: field(r.mimeType),
            text: r.text.slice(0, budget),
          }
        : {
            type: 'resource',
            uri: field(r.uri),
            mime_type: field(r.mimeType),
            bytes: base64Bytes(r.blob),
          };
    }
    default:
      return { type: 'text', text: '' };
  }
}

/** A successful answer as the action's result, bounded. */
export function resultOfMcp(
  r: Pick<CallToolResult, 'content' | 'structuredContent'>,
): McpToolResult {
  const blocks = r.content ?? [];
  let budget: number = MCP_RESULT_LIMITS.textChars;
  let truncated = blocks.length > MCP_RESULT_LIMITS.blocks;
  const content: ResultBlock[] = [];
  for (const b of blocks.slice(0, MCP_RESULT_LIMITS.blocks)) {
    const block = defined(blockOf(b, budget));
    const used = block.text?.length ?? 0;
    const res = b.type === 'resource' ? (b.resource as { text?: unknown }) : undefined;
    const own = b.type === 'text' ? b.text : res?.text;
    const whole = typeof own === 'string' ? own.length : used;
    if (used < whole) truncated = true;
    budget -= used;
    content.push(block);
  }
  return {
    content,
    ...(r.structuredContent === undefined ? {} : { structured_content: r.structuredContent }),
    ...(truncated ? { truncated: true as const } : {}),
  };
}

/** The words of an `isError` answer: its text blocks, one bounded line of outside text. */
export function errorTextOfMcp(r: Pick<CallToolResult, 'content'>): string {
  const text = (r.content ?? [])
    .map((b) => (b.type === 'text' ? b.text : ''))
    .filter((t) => t !== '')
    .join(' ');
  const line = boundedText(text.replace(/\s+/g, ' '), MCP_RESULT_LIMITS.errorChars);
  return line === '' ? 'the server gave no reason' : line;
}
