/**
 * The baseline of issue 30's throughput target: a bare MCP SDK server
 * (`@modelcontextprotocol/sdk` McpServer, Streamable HTTP transport) with one `calculator`
 * tool doing the calculator worker's own arithmetic (its quick path, then mathjs), and no
 * auth, policy, audit or bus. Stateless mode, as the SDK's stateless example runs it: a
 * fresh server and transport per request, JSON answers (`enableJsonResponse`), so no
 * session is kept and no SSE stream opened. A process of its own; prints `ready <url>`.
 *
 *   node dist/bench/mcp-bare.js
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { createCalculate } from '../workers/calculator/calculate.js';
import { quickCalculate } from '../workers/calculator/quick.js';

const calculate = createCalculate();

function bareServer(): McpServer {
  const server = new McpServer({ name: 'bench-bare', version: '1.0.0' });
  server.registerTool(
    'calculator',
    { description: 'Evaluates an arithmetic expression.', inputSchema: { expression: z.string() } },
    ({ expression }) => {
      const result = quickCalculate(expression) ?? calculate(expression);
      return { content: [{ type: 'text', text: JSON.stringify(result) }] };
    },
  );
  return server;
}

async function main(): Promise<void> {
  const httpServer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const server = bareServer();
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        res.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
      })().catch(() => {
        res.statusCode = 500;
        res.end();
      });
    });
  });
  httpServer.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => httpServer.listen(0, '127.0.0.1', r));
  const { port } = httpServer.address() as AddressInfo;
  process.stdout.write(`ready http://127.0.0.1:${port}/mcp\n`);
}

/**
 * MCP's `initialize`, as a client makes it first; the session id when the server opened one
 * (a stateless server answers it and keeps nothing).
 */
export async function mcpInitialize(
  url: string,
  authorization?: string,
): Promise<string | undefined> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    }),
  });
  if (!res.ok) throw new Error(`${url} refused initialize: ${res.status} ${await res.text()}`);
  await res.text();
  return res.headers.get('mcp-session-id') ?? undefined;
}
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
