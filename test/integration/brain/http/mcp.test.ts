import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startBrain } from '../../../../src/brain/daemon/index.js';
import type { PendingConfirmation } from '../../../../src/brain/api/index.js';
import type { RunningBrain } from '../../../../src/brain/daemon/brain.js';
import { loadConfig } from '../../../../src/config/index.js';
import { SHIPPED_INTENTS_FILE } from '../../../../src/config/shipped.js';
import { serveTools, type ToolWorker } from '../../../../src/legion/index.js';
import { calculatorTool } from '../../../../workers/calculator/index.js';
import { createEchoTool } from '../../../fixtures/tools.js';
import { CLI, runCli } from '../../../helpers/cli.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';
import { writeTokensFile } from '../../../helpers/tokens.js';
import { waitFor } from '../../../helpers/wait.js';

/**
 * CAESAR as an MCP server (ADR 0094), to the official TypeScript SDK's client over Streamable
 * HTTP: a real brain, real workers over a real nats-server, the policy file and the audit
 * log. What the client lists is what the policy allows; each call is the gateway's, judged and
 * audited under the token's name.
 */

const POLICY = `version: 1
allowed_tools:
  - calculator
  - tool: shout
    id: shout-asks
    confirm: true
  - late
  - tool: garage
    id: garage-parents-decide
    confirm: true
    approvers: { groups: [parents] }
denied_tools:
  - tool: echo
    id: no-echo
  - tool: calculator
    id: kids-no-calculator
    groups: [kids]
`;
const execFileAsync = promisify(execFile);
/** The MCP Inspector's CLI, `mcp-inspector-cli`, from node_modules. */
const INSPECTOR = join(
  dirname(
    createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json'),
  ),
  'build',
  'cli.js',
);
const AGENT = 'agent-0123456789abcdefghijklmnopqrstu';
const READER = 'reader-0123456789abcdefghijklmnopqrst';
const OTHER = 'other-0123456789abcdefghijklmnopqrstuv';
const KIDS = 'kids-0123456789abcdefghijklmnopqrstuvw';
const PARENT = 'parent-0123456789abcdefghijklmnopqrst';

let dir: string;
let nats: TestNats;
let worker: ToolWorker;
let brain: RunningBrain;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-mcp-'));
  await writeFile(join(dir, 'policy.yaml'), POLICY);
  const tokensFile = join(dir, 'var', 'api-tokens.yaml');
  await writeTokensFile(tokensFile, [
    { name: 'coding_agent', token: AGENT },
    { name: 'reader', token: READER, scopes: ['read'] },
    { name: 'other_agent', token: OTHER, scopes: ['invoke'] },
    { name: 'kids-tablet', token: KIDS, principal: 'kids_tablet', groups: ['kids'] },
    { name: 'mum-phone', token: PARENT, principal: 'mum', groups: ['parents'] },
  ]);
  nats = await startNats();
  worker = await serveTools([calculatorTool, createEchoTool(), createEchoTool({ name: 'shout' })], {
    nc: await nats.connect(),
    host: 'test',
  });
  const config = await loadConfig({
    env: {
      CAESAR_BUS__URL: nats.url,
      CAESAR_DATA_DIR: join(dir, 'var'),
      CAESAR_POLICY__FILE: join(dir, 'policy.yaml'),
      CAESAR_BRAIN__INTENTS_FILE: SHIPPED_INTENTS_FILE,
      CAESAR_API__PORT: '0',
      CAESAR_LOG__LEVEL: 'silent',
    },
    cwd: dir,
  });
  brain = await startBrain(config, { sweepIntervalMs: 500 });
}, 60_000);

afterAll(async () => {
  await brain?.close();
  await worker?.stop();
  await nats?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function connected(
  token: string,
  capabilities: ClientCapabilities = {},
): Promise<Client & AsyncDisposable> {
  const client = new Client({ name: 'caesar-test', version: '1.0.0' }, { capabilities });
  const transport = new StreamableHTTPClientTransport(new URL(`${brain.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

const textOf = (r: unknown) =>
  (((r as { content?: unknown }).content ?? []) as { text?: string }[])
    .map((c) => c.text ?? '')
    .join('');

interface Row {
  readonly event_type: string;
  readonly actor: string;
  readonly principal?: string;
}
/** The audit rows of `tool`, oldest first, as `GET /v1/audit` exports them. */
async function rowsOf(tool: string): Promise<Row[]> {
  const res = await fetch(`${brain.url}/v1/audit?tool=${tool}&order=oldest`, {
    headers: { authorization: `Bearer ${AGENT}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Row[];
}

describe('the brain as an MCP server', () => {
  test('tools/list shows what the policy allows and is ready, with the spec as hints', async () => {
    await using client = await connected(AGENT);
    expect(client.getServerVersion()).toMatchObject({ name: 'caesar' });
    const tools = await waitFor(
      async () => {
        const { tools } = await client.listTools();
        return tools.some((t) => t.name === 'calculator') && tools.some((t) => t.name === 'shout')
          ? tools
          : undefined;
      },
      'calculator and shout to be offered',
      15_000,
      100,
    );
    // echo is served but denied: not listed
    expect(tools.map((t) => t.name).sort()).toEqual(['calculator', 'shout']);
    const calc = tools.find((t) => t.name === 'calculator')!;
    expect(calc.inputSchema).toMatchObject({ type: 'object', required: ['expression'] });
    // the output schema too: the client checks each result's structured content against it
    expect(calc.outputSchema).toMatchObject({ type: 'object', properties: { value: {} } });
    expect(calc.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    // the card a model reads, facts and status included
    expect(calc.description).toMatch(/Status: ready/);
  });

  test('tools/call runs through the gateway and is audited under the token name', async () => {
    await using client = await connected(AGENT);
    const r = await client.callTool({ name: 'calculator', arguments: { expression: '17 * 23' } });
    expect(r.isError).not.toBe(true);
    expect(r.structuredContent).toMatchObject({ value: 391 });
    expect(JSON.parse(textOf(r))).toMatchObject({ result: '391' });
    const rows = await rowsOf('calculator');
    const called = rows.filter((x) => x.event_type === 'tool.called');
    expect(called.map((x) => x.actor)).toContain('coding_agent');
    // a token from before principals is its own principal (ADR 0096)
    expect(called.find((x) => x.actor === 'coding_agent')?.principal).toBe('coding_agent');
  });

  test("tools/list and tools/call are the caller's principal's: a tool its group is denied is not listed", async () => {
    await using agent = await connected(AGENT);
    await using kids = await connected(KIDS);
    await waitFor(
      async () =>
        (await agent.listTools()).tools.some((t) => t.name === 'calculator') ? true : undefined,
      'calculator to be offered to coding_agent',
      15_000,
      100,
    );
    const listed = (await kids.listTools()).tools.map((t) => t.name);
    expect(listed).toContain('shout');
    expect(listed).not.toContain('calculator');
    const r = await kids.callTool({ name: 'calculator', arguments: { expression: '1 + 1' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('kids-no-calculator');
    const denied = (await rowsOf('calculator')).filter((x) => x.event_type === 'tool.denied');
    expect(denied.map((x) => [x.actor, x.principal])).toContainEqual([
      'kids-tablet',
      'kids_tablet',
    ]);
  });

  test('a denied call is an error result that names the rule, and never runs', async () => {
    await using client = await connected(AGENT);
    const r = await client.callTool({ name: 'echo', arguments: { id: 'x', text: 'hi' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^echo denied: .*no-echo/);
    const denied = (await rowsOf('echo')).map((x) => x.event_type);
    expect(denied).toEqual(['tool.denied']);
  });

  test('a call the policy holds says it waits and how to approve it; approved, it runs', async () => {
    await using client = await connected(AGENT);
    const r = await client.callTool({ name: 'shout', arguments: { id: 'y', text: 'hey' } });
    // it produced no output (yet): an error result in MCP's terms, whose text says why
    expect(r.isError).toBe(true);
    const id = /caesar confirm (\S+)`/.exec(textOf(r))?.[1];
    expect(textOf(r)).toMatch(/^shout was not run yet: waiting for a person to approve it/);
    expect(id).toBeDefined();
    const res = await fetch(`${brain.url}/v1/confirmations/${id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${AGENT}`, 'content-type': 'application/json' },
      body: JSON.stringify({ approve: true }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { outcome: string }).outcome).toBe('ok');
  });

  test('the bearer token and its scope are checked; the server is stateless', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const none = await fetch(`${brain.url}/mcp`, { method: 'POST', headers, body });
    expect(none.status).toBe(401);
    const reader = await fetch(`${brain.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${READER}` },
      body,
    });
    expect(reader.status).toBe(403);
    const get = await fetch(`${brain.url}/mcp`, { headers: { authorization: `Bearer ${AGENT}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});

/** `caesar mcp serve --stdio` to this brain as coding_agent, started by the SDK's transport. */
function stdioTransport(): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [
      ...[CLI, 'mcp', 'serve', '--stdio', '--api-url', brain.url],
      ...['--token-file', join(dir, 'var', 'api-tokens.yaml'), '--token-name', 'coding_agent'],
    ],
    stderr: 'pipe',
  });
}

describe('caesar mcp serve --stdio', () => {
  test('a client that launches a process lists and calls the same tools, judged by the brain', async () => {
    const client = new Client({ name: 'caesar-test-stdio', version: '1.0.0' });
    const stderr: string[] = [];
    const transport = stdioTransport();
    transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort(), stderr.join('')).toEqual(['calculator', 'shout']);
      const r = await client.callTool({ name: 'calculator', arguments: { expression: '2 + 3' } });
      expect(r.structuredContent).toMatchObject({ value: 5 });
      const denied = await client.callTool({ name: 'echo', arguments: { id: 'z', text: 'x' } });
      expect(denied.isError).toBe(true);
      expect(textOf(denied)).toMatch(/no-echo/);
    } finally {
      await client.close();
    }
  }, 30_000);

  test("a held call's question reaches the client that launched it, and its yes runs the call", async () => {
    const client = new Client(
      { name: 'caesar-test-stdio', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { approve: true } };
    });
    const transport = stdioTransport();
    await client.connect(transport);
    try {
      const r = await client.callTool({ name: 'shout', arguments: { id: 's1', text: 'relayed' } });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('asked by: token `coding_agent` directly');
      expect(r.isError, textOf(r)).not.toBe(true);
      expect(textOf(r)).toContain('relayed');
    } finally {
      await client.close();
    }
  }, 30_000);

  test('a brain it cannot reach is said on stderr, exit 1, nothing on stdout', async () => {
    const r = await runCli([
      'mcp',
      'serve',
      '--stdio',
      '--api-url',
      'http://127.0.0.1:9/',
      '--token-file',
      join(dir, 'var', 'api-tokens.yaml'),
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^caesar mcp serve: cannot reach the brain's \/mcp: /);
  }, 30_000);
});

describe('a session', () => {
  test('hears tools/list_changed when a worker starts, and lists the new tool', async () => {
    await using client = await connected(AGENT);
    let heard = 0;
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        heard += 1;
        resolve();
      });
    });
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('late');
    const late = await serveTools([createEchoTool({ name: 'late' })], {
      nc: await nats.connect(),
      host: 'test',
    });
    try {
      await changed;
      expect(heard).toBeGreaterThanOrEqual(1);
      const tools = await waitFor(
        async () => {
          const names = (await client.listTools()).tools.map((t) => t.name);
          return names.includes('late') ? names : undefined;
        },
        'the new tool to be listed',
        15_000,
        100,
      );
      expect(tools.sort()).toEqual(['calculator', 'late', 'shout']);
    } finally {
      await late.stop();
    }
  }, 30_000);

  test('a session answers only the token that opened it', async () => {
    await using client = await connected(AGENT);
    await client.listTools();
    const id = (client.transport as StreamableHTTPClientTransport | undefined)?.sessionId;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const res = await fetch(`${brain.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${OTHER}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': id!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    // another client's token may call tools, but finds no session by this id
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: -32001 } });
    // and the owner's session still answers
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });
});

/** A client that takes questions and answers each with `answer`, keeping what it was asked. */
async function asking(
  token: string,
  answer: ElicitResult,
  capabilities: ClientCapabilities = { elicitation: { form: {} } },
) {
  const client = await connected(token, capabilities);
  const asked: ElicitRequest['params'][] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params);
    return answer;
  });
  return Object.assign(client, { asked });
}

/** `GET /v1/confirmations`: the calls waiting for a person. */
const pending = async (): Promise<PendingConfirmation[]> => {
  const res = await fetch(`${brain.url}/v1/confirmations`, {
    headers: { authorization: `Bearer ${AGENT}` },
  });
  return (await res.json()) as PendingConfirmation[];
};

describe('a held call put to the client (elicitation)', () => {
  test('the question says who asked and why; approved there, the call runs and answers', async () => {
    await using client = await asking(AGENT, { action: 'accept', content: { approve: true } });
    const r = await client.callTool({ name: 'shout', arguments: { id: 'e1', text: 'approved' } });
    expect(client.asked).toHaveLength(1);
    const q = client.asked[0]!;
    expect(q.message).toMatch(/^shout is held for a person: /);
    expect(q.message).toContain('asked by: token `coding_agent` directly');
    expect(q.message).toMatch(/held by: rule shout-asks \(.*policy\.yaml:\d+:\d+\)/);
    expect(q).toMatchObject({ requestedSchema: { required: ['approve'] } });
    // the answer is the call's own, not "waiting"
    expect(r.isError, textOf(r)).not.toBe(true);
    expect(textOf(r)).toContain('approved');
    const rows = (await rowsOf('shout')).filter((x) => x.event_type === 'tool.confirmed');
    expect(rows.map((x) => x.actor)).toContain('coding_agent');
  });

  test('a "no" rejects the call: it never runs, and nothing stays pending', async () => {
    await using client = await asking(AGENT, { action: 'decline' });
    const r = await client.callTool({ name: 'shout', arguments: { id: 'e2', text: 'declined' } });
    expect(client.asked).toHaveLength(1);
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^shout rejected/);
    expect((await pending()).filter((c) => c.summary.includes('declined'))).toEqual([]);
  });

  test('no answer (cancel) leaves the call waiting, and the result says how to approve it', async () => {
    await using client = await asking(AGENT, { action: 'cancel' });
    const r = await client.callTool({ name: 'shout', arguments: { id: 'e3', text: 'later' } });
    expect(client.asked).toHaveLength(1);
    const id = /caesar confirm (\S+)`/.exec(textOf(r))?.[1];
    expect(id).toBeDefined();
    expect((await pending()).map((c) => c.id)).toContain(id);
  });

  test('a client of an earlier revision (elicitation: {}) is asked too', async () => {
    await using client = await asking(
      AGENT,
      { action: 'accept', content: { approve: false } },
      { elicitation: {} },
    );
    const r = await client.callTool({ name: 'shout', arguments: { id: 'e4', text: 'no' } });
    expect(client.asked).toHaveLength(1);
    // accepted with approve: false is a no
    expect(textOf(r)).toMatch(/^shout rejected/);
  });

  test("a rule's approvers (ADR 0096): a caller outside them is not asked, one inside is", async () => {
    const garage = await serveTools([createEchoTool({ name: 'garage' })], {
      nc: await nats.connect(),
      host: 'test',
    });
    try {
      await using agent = await asking(AGENT, { action: 'accept', content: { approve: true } });
      await waitFor(
        async () => (await agent.listTools()).tools.some((t) => t.name === 'garage'),
        'garage to be offered',
        15_000,
        100,
      );
      // coding_agent may decide confirmations, but not this one: asked, its yes would be refused
      const held = await agent.callTool({ name: 'garage', arguments: { id: 'g1', text: 'x' } });
      expect(agent.asked).toEqual([]);
      expect(textOf(held)).toMatch(/^garage was not run yet: waiting for a person/);
      await using mum = await asking(PARENT, { action: 'accept', content: { approve: true } });
      const r = await mum.callTool({ name: 'garage', arguments: { id: 'g2', text: 'open' } });
      expect(mum.asked).toHaveLength(1);
      expect(mum.asked[0]!.message).toContain(
        "decided by: group parents only (the rule's approvers)",
      );
      expect(r.isError, textOf(r)).not.toBe(true);
      expect(textOf(r)).toContain('open');
      const confirmed = (await rowsOf('garage')).filter((x) => x.event_type === 'tool.confirmed');
      expect(confirmed.map((x) => x.actor)).toEqual(['mum-phone']);
    } finally {
      await garage.stop();
    }
  }, 30_000);

  test('a token that may not decide confirmations is never asked: its call waits for a person', async () => {
    await using client = await asking(OTHER, { action: 'accept', content: { approve: true } });
    const r = await client.callTool({ name: 'shout', arguments: { id: 'e5', text: 'self' } });
    expect(client.asked).toEqual([]);
    expect(textOf(r)).toMatch(/^shout was not run yet: waiting for a person to approve it/);
    expect(
      (await rowsOf('shout')).filter((x) => x.event_type === 'tool.confirmed'),
    ).not.toContainEqual(expect.objectContaining({ actor: 'other_agent' }));
  });
});

describe('the MCP Inspector CLI', () => {
  test('lists the tools and calls one, over Streamable HTTP with the bearer token', async () => {
    const inspector = async (...args: string[]) => {
      const { stdout } = await execFileAsync(
        process.execPath,
        [
          INSPECTOR,
          '--cli',
          `${brain.url}/mcp`,
          '--transport',
          'http',
          '--header',
          `Authorization: Bearer ${AGENT}`,
          ...args,
        ],
        // 1.0.3 reads its own version from `../package.json`, tested against the working
        // directory but imported from its module: run it from its own build folder
        { timeout: 20_000, cwd: dirname(INSPECTOR) },
      );
      return JSON.parse(stdout) as Record<string, unknown>;
    };
    const listed = (await inspector('--method', 'tools/list')) as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name).sort()).toEqual(['calculator', 'shout']);
    const called = (await inspector(
      '--method',
      'tools/call',
      '--tool-name',
      'calculator',
      '--tool-arg',
      'expression=6*7',
    )) as { structuredContent?: { value?: number } };
    expect(called.structuredContent?.value).toBe(42);
  }, 60_000);
});
