import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createDispatcher } from '../../../src/brain/dispatch/index.js';
import { ToolGateway } from '../../../src/brain/gateway/index.js';
import { compileJsonSchema } from '../../../src/json-schema/index.js';
import { McpServer, mcpToolOf } from '../../../src/legion/mcp/index.js';
import { silentLogger } from '../../../src/log/index.js';
import { startBrainStack, type BrainParts, type BrainStack } from '../../helpers/brain-parts.js';
import { ROOT } from '../../helpers/sources.js';
import { waitFor } from '../../helpers/wait.js';

// @modelcontextprotocol/server-everything (a pinned dev dependency) served as the tool `demo`
// (ADR 0095): its tools listed with their schemas, a deadline its long-running tool must honour,
// and its process killed in the middle of a call.
const SERVER = join(ROOT, 'node_modules/.bin/mcp-server-everything');
const POLICY = `version: 1
allowed_tools:
  - tool: demo
    id: demo-all
`;
const caller = { actor: 'tester' };

describe('serve-mcp: the everything MCP server as the governed tool demo', () => {
  let server: McpServer;
  let stack: BrainStack;
  let parts: BrainParts;

  beforeAll(async () => {
    server = await McpServer.start({
      tool: 'demo',
      target: { kind: 'stdio', command: SERVER, args: ['stdio'] },
      logger: silentLogger(),
      startTimeoutMs: 30_000,
      // long enough to see it down, short enough to come back soon
      backoff: { backoffMs: 3000, maxBackoffMs: 3000, stableAfterMs: 60_000 },
      random: () => 1,
    });
    const { tool, skipped } = mcpToolOf(server, { name: 'demo', compile: compileJsonSchema });
    expect(skipped).toEqual(['"simulate-research-query": runs only as an MCP task']);
    stack = await startBrainStack({
      policy: POLICY,
      tools: [...tool.actions],
      callTimeoutMs: 20_000,
    });
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
    await server?.close();
  });

  beforeEach(async () => {
    parts = await stack.parts();
  });
  afterEach(async () => {
    await parts?.close();
  });

  test('its tools are listed through the registry, each an action with its schema', () => {
    const names = stack.registry.tools().map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'demo.echo',
        'demo.get_sum',
        'demo.get_structured_content',
        'demo.trigger_long_running_operation',
      ]),
    );
    expect(names.every((n) => n.startsWith('demo.'))).toBe(true);
    expect(names).not.toContain('demo.simulate_research_query');
    const sum = stack.registry.tool('demo.get_sum')?.spec;
    expect(sum?.input_schema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(sum?.input_schema).not.toHaveProperty(
      '$schema',
      'http://json-schema.org/draft-07/schema#',
    );
    expect(sum?.title).toBe('Get Sum Tool');
    expect(sum?.description).toMatch(/^Returns the sum of two numbers \(MCP tool "get-sum" of/);
    // a declared output schema types structured_content
    const weather = stack.registry.tool('demo.get_structured_content')?.spec;
    expect(weather?.output_schema).toMatchObject({
      properties: { structured_content: { required: ['temperature', 'conditions', 'humidity'] } },
    });
  });

  test('a call reaches the MCP tool under its own name and returns its content', async () => {
    const r = await parts.gateway.invoke('demo.get_sum', { a: 17, b: 23 }, caller);
    expect(r.outcome).toBe('ok');
    expect(JSON.stringify(r.result)).toMatch(/40/);
    const bad = await parts.gateway.invoke('demo.get_sum', { a: 'x' }, caller);
    expect(bad.error?.code).toBe('invalid_input');
  });

  test('the long-running tool is cut off at the deadline with a typed timeout', async () => {
    const gateway = new ToolGateway({
      tools: stack.registry,
      policy: parts.policy,
      audit: parts.audit,
      dispatcher: createDispatcher({ nc: stack.nc }),
      callTimeoutMs: 1500,
      confirmationTtlMs: 60_000,
    });
    try {
      const started = Date.now();
      const r = await gateway.invoke(
        'demo.trigger_long_running_operation',
        { duration: 30, steps: 30 },
        caller,
      );
      expect(r.outcome).toBe('failed');
      expect(r.error).toMatchObject({ code: 'timeout', retryable: true });
      expect(Date.now() - started).toBeLessThan(10_000);
      // the worker let go of the call: the SDK cancelled its request on the deadline
      await waitFor(() => stack.worker.inFlight() === 0, 'the call to leave the worker');
    } finally {
      gateway.close();
    }
  });

  test('the server killed mid-call gives a typed error, reports not ready, and comes back', async () => {
    const pid = server.pid!;
    expect(pid).toBeGreaterThan(0);
    const call = parts.gateway.invoke(
      'demo.trigger_long_running_operation',
      { duration: 15, steps: 15 },
      caller,
    );
    await waitFor(() => stack.worker.inFlight() === 1, 'the call to reach the worker');
    process.kill(pid, 'SIGKILL');
    const r = await call;
    expect(r.outcome).toBe('failed');
    expect(r.error).toMatchObject({ code: 'mcp_server_unavailable', retryable: true });
    expect(r.error?.message).toMatch(/^the MCP server behind demo is not running: it went down/);

    // while it is down (3 s of backoff): a call fails at once, and the preflight says not ready
    expect(server.up).toBe(false);
    const meanwhile = await parts.gateway.invoke('demo.echo', { message: 'x' }, caller);
    expect(meanwhile.error).toMatchObject({ code: 'mcp_server_unavailable' });
    expect(meanwhile.error?.message).toMatch(/starting it again in/);
    const [down] = await stack.worker.preflight();
    expect(down?.ok).toBe(false);
    expect(down?.checks[0]?.detail).toMatch(/exited after .* up; starting it again in/);
    await waitFor(() => server.up, 'the server to be started again', 20_000);
    expect(server.restarts).toBe(1);
    expect(server.pid).not.toBe(pid);
    const again = await parts.gateway.invoke('demo.echo', { message: 'back' }, caller);
    expect(again.outcome).toBe('ok');
    expect(again.result).toMatchObject({ content: [{ type: 'text', text: 'Echo: back' }] });
    const [up] = await stack.worker.preflight();
    expect(up?.ok).toBe(true);
    expect(up?.checks[0]?.detail).toMatch(/started again 1 time/);
    expect(up?.warnings).toEqual([]);
  });
});
