import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChatRequestSchema,
  ConfirmRequestSchema,
  InvokeRequestSchema,
  type ChatEvent,
  type ChatResponse,
  type ToolCallReport,
  type ToolView,
} from '../../../../src/brain/api/index.js';
import type { HttpError } from '../../../../src/brain/api/contract.js';
import { writeRuntimeFile } from '../../../../src/config/index.js';

/**
 * A loopback HTTP server that speaks the brain API contract (src/brain/api/contract.ts) with
 * canned answers, for testing the CLI client against real HTTP. `route` overrides an answer.
 * `POST /v1/chat` asking for `text/event-stream` gets the turn streamed as the brain streams
 * it: each tool call and its result, an echo reply as text deltas (an intent reply as none),
 * then `done`.
 */

export const TOKEN = 'tok-s3cr3t-0123456789abcdef';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/**
 * An answer: status + JSON body (+ headers), raw text, an event stream (each frame written
 * as the iterable yields it, so a test can hold the stream open), or 'hang' (never answers).
 */
export type StubAnswer =
  | { status: number; body: unknown; headers?: Record<string, string> }
  | { status: number; raw: string; headers?: Record<string, string> }
  | { sse: Iterable<string> | AsyncIterable<string>; headers?: Record<string, string> }
  | 'hang';

/** One SSE frame of a chat event: `event: <type>` and the JSON of the rest. */
export function sseFrame(event: ChatEvent): string {
  const { type, ...data } = event;
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

export interface BrainStub extends AsyncDisposable {
  url: string;
  port: number;
  requests: SeenRequest[];
  /** Replaces the answer to every request whose `METHOD /path` matches. */
  route(match: RegExp, answer: (req: SeenRequest) => StubAnswer): void;
  /** Forgets the requests seen and the routes added. */
  reset(): void;
}

export function httpError(status: number, code: string, message: string): StubAnswer {
  const body: HttpError = { error: { code, message }, request_id: `req-${status}` };
  return { status, body };
}

export function report(extra: Partial<ToolCallReport> & { tool: string }): ToolCallReport {
  return { input: {}, outcome: 'ok', decision_id: 'dec-1', duration_ms: 3, ...extra };
}

const TICKET = {
  id: 'conf-1',
  summary: 'call_service light.turn_on on light.kitchen',
  expires_at: '2030-01-01T00:00:00.000Z',
};

function chatAnswer(req: SeenRequest): StubAnswer {
  const parsed = ChatRequestSchema.safeParse(req.body);
  if (!parsed.success) return httpError(400, 'invalid_request', 'bad chat request');
  const { message, session_id } = parsed.data;
  const product = /(\d+)\s*\*\s*(\d+)/.exec(message);
  const tool_calls = product
    ? [report({ tool: 'calculator', input: { expression: product[0] }, result: 391 })]
    : /kitchen/.test(message)
      ? [report({ tool: 'call_service', outcome: 'confirmation_required', confirmation: TICKET })]
      : [];
  const reply = product
    ? `${product[0]} = ${Number(product[1]) * Number(product[2])}`
    : `echo: ${message}`;
  const body: ChatResponse = {
    session_id: session_id ?? 'sess-new',
    reply,
    tool_calls,
    iterations: 1,
    capped: false,
    planner: product ? 'intent' : 'none',
  };
  if (!String(req.headers.accept).includes('text/event-stream')) return { status: 200, body };
  const events: ChatEvent[] = tool_calls.flatMap((report, i): ChatEvent[] => [
    { type: 'tool_call', call_id: `c${i}`, tool: report.tool, input: report.input },
    { type: 'tool_result', call_id: `c${i}`, report },
  ]);
  if (!product) events.push({ type: 'text', delta: 'echo: ' }, { type: 'text', delta: message });
  events.push({ type: 'done', response: body });
  return { sse: events.map(sseFrame) };
}

function invokeAnswer(req: SeenRequest): StubAnswer {
  if (!InvokeRequestSchema.safeParse(req.body).success) {
    return httpError(400, 'invalid_request', 'bad invoke request');
  }
  const tool = decodeURIComponent(/\/v1\/tools\/([^/]+)\/invoke/.exec(req.url)![1]!);
  const input = (req.body as { input: unknown }).input;
  const answers: Record<string, ToolCallReport> = {
    calculator: report({ tool, input, result: { value: 391 } }),
    call_service: report({
      tool,
      input,
      outcome: 'confirmation_required',
      confirmation: TICKET,
      rule: 'allowed_services[0]',
    }),
    shell: report({
      tool,
      input,
      outcome: 'denied',
      reason: 'shell is not listed in policy.yaml',
      rule: 'default',
    }),
  };
  const answer = answers[tool];
  return answer ? { status: 200, body: answer } : httpError(404, 'not_found', `no tool ${tool}`);
}

function confirmAnswer(req: SeenRequest): StubAnswer {
  const parsed = ConfirmRequestSchema.safeParse(req.body);
  if (!parsed.success) return httpError(400, 'invalid_request', 'bad confirm request');
  if (!req.url.endsWith(`/${TICKET.id}`)) {
    return httpError(404, 'confirmation_not_found', 'no pending confirmation');
  }
  const body = parsed.data.approve
    ? report({ tool: 'call_service', result: { ok: true } })
    : report({ tool: 'call_service', outcome: 'rejected', reason: 'rejected by operator' });
  return { status: 200, body };
}

const TOOLS: ToolView[] = [
  {
    name: 'calculator',
    state: 'served',
    spec: {},
    instances: [{ id: 'i-1', host: 'h', version: '1.0.0' }],
    preflight: { ok: true, state: 'ready', detail: [], checked_at: null },
    policy: { outcome: 'allow', rule: 'allowed_tools[0]', reason: 'listed' },
  },
];

function defaultAnswer(req: SeenRequest): StubAnswer {
  if (req.headers.authorization !== `Bearer ${TOKEN}`) {
    return httpError(401, 'unauthorized', 'missing or unknown API token');
  }
  const line = `${req.method} ${req.url}`;
  if (line === 'POST /v1/chat') return chatAnswer(req);
  if (/^POST \/v1\/tools\/[^/]+\/invoke$/.test(line)) return invokeAnswer(req);
  if (/^POST \/v1\/confirmations\/[^/]+$/.test(line)) return confirmAnswer(req);
  if (line === 'GET /v1/tools') return { status: 200, body: TOOLS };
  return httpError(404, 'not_found', `no route ${line}`);
}

async function writeStream(
  res: ServerResponse,
  frames: Iterable<string> | AsyncIterable<string>,
  headers: Record<string, string> = {},
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'x-request-id': 'req-sse',
    ...headers,
  });
  res.flushHeaders();
  try {
    for await (const frame of frames) res.write(frame);
  } finally {
    res.end();
  }
}

export async function startBrainStub(): Promise<BrainStub> {
  const requests: SeenRequest[] = [];
  const routes: { match: RegExp; answer: (req: SeenRequest) => StubAnswer }[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const seen: SeenRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: text === '' ? undefined : (JSON.parse(text) as unknown),
      };
      requests.push(seen);
      const custom = routes.find((r) => r.match.test(`${seen.method} ${seen.url}`));
      const answer = (custom?.answer ?? defaultAnswer)(seen);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      if ('sse' in answer) {
        writeStream(res, answer.sse, answer.headers).catch(() => res.destroy());
        return;
      }
      const payload = 'raw' in answer ? answer.raw : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    route: (match, answer) => routes.unshift({ match, answer }),
    reset: () => {
      requests.length = 0;
      routes.length = 0;
    },
    async [Symbol.asyncDispose]() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface StackDir extends AsyncDisposable {
  /** The data dir holding runtime.json. */
  dataDir: string;
  tokenFile: string;
}

/**
 * A temp data dir as `caesar up` leaves it: an API tokens file (0600) and a runtime.json
 * naming `apiUrl` and this (alive) process.
 */
export async function stackDir(
  apiUrl: string,
  tokens = `tokens:\n  - name: operator\n    token: ${TOKEN}\n`,
): Promise<StackDir> {
  const dataDir = await mkdtemp(join(tmpdir(), 'caesar-cli-client-'));
  const tokenFile = join(dataDir, 'api-tokens.yaml');
  await writeFile(tokenFile, tokens, { mode: 0o600 });
  await chmod(tokenFile, 0o600);
  await writeRuntimeFile(dataDir, {
    pid: process.pid,
    started_at: new Date().toISOString(),
    data_dir: dataDir,
    nats_url: 'nats://127.0.0.1:1',
    api_url: apiUrl,
    token_file: tokenFile,
    token_name: 'operator',
    audit_db: join(dataDir, 'audit.db'),
    policy_file: join(dataDir, 'policy.yaml'),
    tools: ['calculator'],
  });
  return {
    dataDir,
    tokenFile,
    [Symbol.asyncDispose]: () => rm(dataDir, { recursive: true, force: true }),
  };
}
