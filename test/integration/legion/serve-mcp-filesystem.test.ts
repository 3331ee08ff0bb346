import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { compileJsonSchema } from '../../../src/json-schema/index.js';
import { McpServer, mcpToolOf } from '../../../src/legion/mcp/index.js';
import { silentLogger } from '../../../src/log/index.js';
import { startBrainStack, type BrainParts, type BrainStack } from '../../helpers/brain-parts.js';
import { ROOT } from '../../helpers/sources.js';

// @modelcontextprotocol/server-filesystem (a pinned dev dependency), limited to a temp dir and
// served as the tool `files` (ADR 0095): the policy grants its read actions only.
const SERVER = join(ROOT, 'node_modules/.bin/mcp-server-filesystem');
const POLICY = `version: 1
allowed_tools:
  - tool: files
    id: files-read
    actions: [read_text_file, list_directory]
`;
const caller = { actor: 'tester' };

describe('serve-mcp: the filesystem MCP server as the governed tool files', () => {
  let root: string;
  let server: McpServer;
  let stack: BrainStack;
  let parts: BrainParts;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'caesar-mcp-fs-'));
    writeFileSync(join(root, 'notes.txt'), 'milk, eggs\n');
    server = await McpServer.start({
      tool: 'files',
      target: { kind: 'stdio', command: SERVER, args: [root] },
      logger: silentLogger(),
      startTimeoutMs: 30_000,
    });
    const { tool } = mcpToolOf(server, { name: 'files', compile: compileJsonSchema });
    stack = await startBrainStack({ policy: POLICY, tools: [...tool.actions] });
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  beforeEach(async () => {
    parts = await stack.parts();
  });
  afterEach(async () => {
    await parts?.close();
  });

  const rowsOf = (decisionId: string) =>
    parts.audit.query({ decisionId, order: 'oldest' }).map((r) => r.type);

  test('each of its tools is an action of files, with its schema and what MCP says of it', () => {
    const write = stack.registry.tool('files.write_file')?.spec;
    expect(write?.input_schema).toMatchObject({
      type: 'object',
      required: ['path', 'content'],
      properties: { path: { type: 'string' }, content: { type: 'string' } },
    });
    expect(write?.annotations).toEqual({
      readOnly: false,
      destructive: true,
      idempotent: true,
      openWorld: false,
    });
    const read = stack.registry.tool('files.read_text_file')?.spec;
    expect(read?.annotations.readOnly).toBe(true);
    // text from an MCP server is outside content, and may be the operator's own files
    expect(read?.output_trust).toBe('untrusted');
    expect(read?.reads_private).toBe(true);
    expect(read?.tags).toEqual(['tool', 'mcp']);
  });

  test('an allowed read runs and is audited as tool.called then tool.result', async () => {
    const r = await parts.gateway.invoke(
      'files.read_text_file',
      { path: join(root, 'notes.txt') },
      caller,
    );
    expect(r.outcome).toBe('ok');
    expect(r.rule).toBe('files-read');
    expect(r.result).toMatchObject({
      content: [{ type: 'text', text: 'milk, eggs\n' }],
      structured_content: { content: 'milk, eggs\n' },
    });
    expect(r.label).toMatchObject({ trust: 'untrusted', private: true });
    expect(rowsOf(r.decision_id)).toEqual(['tool.called', 'tool.result']);
    const called = parts.audit.query({ decisionId: r.decision_id, types: ['tool.called'] })[0];
    expect(called?.tool).toBe('files.read_text_file');
    expect(called?.payload).toMatchObject({ decision: { rule: 'files-read', allowed: true } });
  });

  test('a write the policy does not grant is denied, audited as tool.denied, and never runs', async () => {
    const target = join(root, 'evil.txt');
    const r = await parts.gateway.invoke(
      'files.write_file',
      { path: target, content: 'pwned' },
      caller,
    );
    expect(r.outcome).toBe('denied');
    expect(r.reason).toMatch(/files\.write_file/);
    expect(rowsOf(r.decision_id)).toEqual(['tool.denied']);
    const denied = parts.audit.query({ decisionId: r.decision_id, types: ['tool.denied'] })[0];
    expect(denied?.tool).toBe('files.write_file');
    expect(existsSync(target)).toBe(false);
  });

  test("the server's own refusal (a path outside its directory) is a typed mcp_tool_error", async () => {
    const r = await parts.gateway.invoke('files.read_text_file', { path: '/etc/passwd' }, caller);
    expect(r.outcome).toBe('failed');
    expect(r.error).toMatchObject({ code: 'mcp_tool_error', retryable: false });
    expect(r.error?.message).toMatch(/^files\.read_text_file answered with an error: .*denied/i);
    expect(rowsOf(r.decision_id)).toEqual(['tool.called', 'tool.failed']);
  });

  test('its preflight says the server answers tools/list', async () => {
    const [reply] = await stack.worker.preflight();
    expect(reply?.ok).toBe(true);
    expect(reply?.checks[0]).toMatchObject({ name: 'mcp_server', ok: true });
    expect(reply?.checks[0]?.detail).toMatch(/secure-filesystem-server .* answers tools\/list/);
    expect(reply?.warnings).toEqual([]);
  });
});
