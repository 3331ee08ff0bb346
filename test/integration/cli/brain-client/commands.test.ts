import { writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  EXIT_CONFIRMATION,
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
} from '../../../../src/cli/brain-client/command.js';
import type { ChatCliIo } from '../../../../src/cli/commands/chat/io.js';
import { runChat } from '../../../../src/cli/commands/chat/run.js';
import { runConfirm, runConfirmList } from '../../../../src/cli/commands/confirm.run.js';
import { runInvoke } from '../../../../src/cli/commands/invoke.run.js';
import {
  TOKEN,
  httpError,
  report,
  stackDir,
  startBrainStub,
  type BrainStub,
  type StackDir,
} from './brain-stub.js';

/**
 * `caesar chat`, `invoke`, `confirm` and `reject` in-process, against a loopback server
 * that speaks the API contract, found through runtime.json in a temp data dir.
 */

let stub: BrainStub;
let stack: StackDir;

beforeAll(async () => {
  stub = await startBrainStub();
  stack = await stackDir(stub.url);
});
afterAll(async () => {
  await stack[Symbol.asyncDispose]();
  await stub[Symbol.asyncDispose]();
});
beforeEach(() => stub.reset());

interface Collected extends ChatCliIo {
  stdout: string[];
  stderr: string[];
  all(): string;
}

function io(extra: Partial<ChatCliIo> = {}): Collected {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (l) => stdout.push(l),
    err: (l) => stderr.push(l),
    all: () => [...stdout, ...stderr].join('\n'),
    interactive: false,
    ...extra,
  };
}

const flags = () => ({ dataDir: stack.dataDir });

describe('caesar chat', () => {
  test('one-shot prints the reply, each tool call as a compact line on stderr, and exits 0', async () => {
    const out = io();
    expect(await runChat(['what', 'is', '17 * 23'], flags(), out)).toBe(EXIT_OK);
    expect(out.stdout).toEqual(['17 * 23 = 391']);
    expect(out.stderr).toEqual(['· calculator → ok (3 ms)']);
    expect(stub.requests[0]!.body).toEqual({ message: 'what is 17 * 23' });
    expect(stub.requests[0]!.headers.accept).toBe('text/event-stream, application/json;q=0.5');
  });

  test('--verbose adds each tool call and the planner on stderr', async () => {
    const out = io();
    expect(await runChat(['what is 17 * 23'], { ...flags(), verbose: true }, out)).toBe(EXIT_OK);
    expect(out.stdout).toEqual(['17 * 23 = 391']);
    expect(out.stderr).toEqual([
      '[tool] calculator ok (decision dec-1, 3 ms)',
      '[chat] session sess-new, planner intent, 1 iteration(s)',
    ]);
  });

  test('--json prints the ChatResponse; --session continues a session or starts it by that name', async () => {
    const out = io();
    const code = await runChat(['hello'], { ...flags(), json: true, session: 'abc_1' }, out);
    expect(code).toBe(EXIT_OK);
    expect(JSON.parse(out.stdout.join('\n'))).toMatchObject({
      session_id: 'abc_1',
      reply: 'echo: hello',
      planner: 'none',
    });
    expect(stub.requests[0]!.body).toEqual({
      message: 'hello',
      session_id: 'abc_1',
      create_session: true,
    });
  });

  test('a tool call waiting for approval prints the confirm command', async () => {
    const out = io();
    expect(await runChat(['turn on the kitchen light'], flags(), out)).toBe(EXIT_OK);
    expect(out.stderr).toContain(`approve: caesar confirm conf-1 --data-dir ${stack.dataDir}`);
  });

  test('piped stdin sends one message per line, keeping the session', async () => {
    const input = Readable.from(['what is 2 * 3\n', '\n', 'what is 17 * 23\n', 'thanks']);
    const out = io({ input });
    expect(await runChat([], flags(), out)).toBe(EXIT_OK);
    expect(out.stdout).toEqual(['2 * 3 = 6', '17 * 23 = 391', 'echo: thanks']);
    expect(stub.requests.map((r) => r.body)).toEqual([
      { message: 'what is 2 * 3' },
      { message: 'what is 17 * 23', session_id: 'sess-new' },
      { message: 'thanks', session_id: 'sess-new' },
    ]);
  });

  test('piped stdin runs /tools and /session as commands, not chat messages, and stops at /exit', async () => {
    const input = Readable.from(['/tools\n', 'what is 2 * 3\n', '/session\n', '/exit\n', 'after']);
    const out = io({ input });
    expect(await runChat([], flags(), out)).toBe(EXIT_OK);
    expect(out.stdout[0]).toMatch(/^calculator\s+allow\s+1 instance\(s\)$/);
    expect(out.stdout.slice(-2)).toEqual(['2 * 3 = 6', 'session sess-new']);
    expect(stub.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /v1/tools',
      'POST /v1/chat',
    ]);
  });

  test('piped stdin with --json prints one JSON object per line', async () => {
    const out = io({ input: Readable.from(['a\nb\n']) });
    expect(await runChat([], { ...flags(), json: true }, out)).toBe(EXIT_OK);
    expect(out.stdout.map((l) => (JSON.parse(l) as { reply: string }).reply)).toEqual([
      'echo: a',
      'echo: b',
    ]);
  });

  test('piped stdin stops at the first error answer with exit 1', async () => {
    stub.route(/^POST \/v1\/chat$/, (req) =>
      (req.body as { message: string }).message === 'boom'
        ? httpError(500, 'internal', 'it broke')
        : { status: 200, body: { ...chatBody(), reply: 'fine' } },
    );
    const out = io({ input: Readable.from(['one\nboom\nthree\n']) });
    expect(await runChat([], flags(), out)).toBe(EXIT_FAILED);
    expect(out.stdout).toEqual(['fine']);
    expect(out.stderr).toEqual([
      'caesar chat: the brain answered 500 internal: it broke (request req-500)',
    ]);
    expect(stub.requests).toHaveLength(2);
  });

  test('empty piped stdin is a usage error', async () => {
    const out = io({ input: Readable.from(['\n  \n']) });
    expect(await runChat([], flags(), out)).toBe(EXIT_USAGE);
    expect(out.stderr[0]).toMatch(/no message/);
  });

  test('the interactive session keeps the session id and ends at /exit', async () => {
    const input = new PassThrough();
    const prompt = new PassThrough();
    const out = io({ input, output: prompt, interactive: true });
    const done = runChat([], flags(), out);
    input.write('what is 17 * 23\n/session\n/tools\nhello\n/exit\nnever sent\n');
    expect(await done).toBe(EXIT_OK);
    expect(out.stdout).toEqual([
      `connected to ${stub.url} as operator; /help for commands`,
      '17 * 23 = 391',
      'session sess-new',
      'calculator       allow        1 instance(s)',
      'echo: hello',
    ]);
    expect(stub.requests.filter((r) => r.url === '/v1/chat')).toHaveLength(2);
    expect(String(prompt.read())).toContain('you> ');
  });

  test('the interactive session ends when input ends (Ctrl-D)', async () => {
    const input = new PassThrough();
    const out = io({ input, output: new PassThrough(), interactive: true });
    const done = runChat([], flags(), out);
    input.end('hello\n');
    expect(await done).toBe(EXIT_OK);
    expect(out.stdout.at(-1)).toBe('echo: hello');
  });

  test.each([
    ['an empty message', [''], {}, /the message is empty/],
    ['a bad session id', ['hi'], { session: 'has space' }, /--session: expected/],
  ])('%s is a usage error (exit 2), nothing sent', async (_name, words, extra, message) => {
    const out = io();
    expect(await runChat(words, { ...flags(), ...extra }, out)).toBe(EXIT_USAGE);
    expect(out.stderr[0]).toMatch(message);
    expect(stub.requests).toHaveLength(0);
  });

  test('a refused token names the token and its file, never the token itself', async () => {
    const file = join(stack.dataDir, 'other-tokens.yaml');
    await writeFile(file, 'tokens:\n  - {name: operator, token: wrong-token-0123456789abcdef}\n', {
      mode: 0o600,
    });
    const out = io();
    expect(await runChat(['hi'], { ...flags(), tokenFile: file }, out)).toBe(EXIT_FAILED);
    expect(out.stderr).toEqual([
      `caesar chat: the brain refused token 'operator' from ${file} (401 unauthorized: missing or unknown API token) (request req-401)`,
    ]);
  });

  test.each([
    [413, 'body_too_large', /the request is larger than the brain accepts \(413 body_too_large/],
    [429, 'rate_limited', /rate limited by the brain \(429 rate_limited: .*\); retry in 3 s/],
  ])('%i is one clear line and exit 1', async (status, code, message) => {
    stub.route(/^POST \/v1\/chat$/, () => ({
      ...(httpError(status, code, 'no') as { status: number; body: unknown }),
      headers: { 'retry-after': '3' },
    }));
    const out = io();
    expect(await runChat(['hi'], flags(), out)).toBe(EXIT_FAILED);
    expect(out.stderr).toHaveLength(1);
    expect(out.stderr[0]).toMatch(message);
  });

  test('with no stack running it says so in one line, exit 1', async () => {
    // No runtime.json: the URL comes from caesar.yaml, where nothing listens.
    const port = await freePort();
    const config = join(stack.dataDir, 'caesar.yaml');
    await writeFile(config, `api:\n  port: ${port}\n`);
    const empty = join(stack.dataDir, 'empty');
    const out = io();
    const code = await runChat(['hi'], { dataDir: empty, config, tokenFile: stack.tokenFile }, out);
    expect(code).toBe(EXIT_FAILED);
    expect(out.stderr).toEqual([
      `caesar chat: cannot reach the brain at http://127.0.0.1:${port}: no runtime.json in ${empty}; is \`caesar up\` running?`,
    ]);
  });

  test('an --api-url where nothing listens is named as given', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const out = io();
    expect(await runChat(['hi'], { ...flags(), apiUrl: url }, out)).toBe(EXIT_FAILED);
    expect(out.stderr).toEqual([
      `caesar chat: cannot reach the brain at ${url}: is \`caesar up\` running? (ECONNREFUSED)`,
    ]);
  });
});

/** A port nothing listens on: bound once, then released. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function chatBody() {
  return {
    session_id: 's',
    reply: '',
    tool_calls: [],
    iterations: 0,
    capped: false,
    planner: 'none',
  };
}

describe('caesar invoke', () => {
  test('an ok call prints the report and exits 0', async () => {
    const out = io();
    const code = await runInvoke('calculator', '{"expression": "17 * 23"}', flags(), out);
    expect(code).toBe(EXIT_OK);
    expect(out.stdout[0]).toBe('calculator: ok (decision dec-1, 3 ms)');
    expect(JSON.parse(out.stdout.slice(1).join('\n'))).toEqual({ value: 391 });
    expect(stub.requests[0]!.body).toEqual({ input: { expression: '17 * 23' } });
  });

  test('--json prints the ToolCallReport', async () => {
    const out = io();
    expect(await runInvoke('calculator', '{}', { ...flags(), json: true }, out)).toBe(EXIT_OK);
    expect(JSON.parse(out.stdout.join('\n'))).toMatchObject({ tool: 'calculator', outcome: 'ok' });
  });

  test('a call waiting for approval exits 3 with the id, summary, expiry and commands', async () => {
    const out = io();
    const code = await runInvoke('call_service', '{"domain": "light"}', flags(), out);
    expect(code).toBe(EXIT_CONFIRMATION);
    expect(out.stdout).toEqual([
      'call_service: confirmation required (decision dec-1, 3 ms)',
      'rule: allowed_services[0]',
      'waiting for approval: call_service light.turn_on on light.kitchen',
      'confirmation conf-1, expires 2030-01-01T00:00:00.000Z',
      `approve: caesar confirm conf-1 --data-dir ${stack.dataDir}`,
      `reject:  caesar reject conf-1 --data-dir ${stack.dataDir}`,
    ]);
  });

  test('a denied call exits 1 with the reason and the rule', async () => {
    const out = io();
    expect(await runInvoke('shell', '{"cmd": "ls"}', flags(), out)).toBe(EXIT_FAILED);
    expect(out.stdout).toEqual([
      'shell: denied (decision dec-1, 3 ms)',
      'reason: shell is not listed in policy.yaml',
      'rule: default',
    ]);
  });

  test('a failed call exits 1 with the error code', async () => {
    stub.route(/invoke$/, () => ({
      status: 200,
      body: report({
        tool: 'calculator',
        outcome: 'failed',
        error: { code: 'no_worker', message: 'no calculator worker', retryable: true },
      }),
    }));
    const out = io();
    expect(await runInvoke('calculator', undefined, flags(), out)).toBe(EXIT_FAILED);
    expect(out.stdout[1]).toBe('error: no_worker: no calculator worker');
    expect(stub.requests[0]!.body).toEqual({ input: {} });
  });

  test('the input may come from a file or from stdin', async () => {
    const file = join(stack.dataDir, 'input.json');
    await writeFile(file, '{"expression": "1 + 1"}');
    expect(await runInvoke('calculator', undefined, { ...flags(), inputFile: file }, io())).toBe(0);
    const stdin = io({ input: Readable.from(['{"expression"', ': "2 + 2"}']) });
    expect(await runInvoke('calculator', '-', flags(), stdin)).toBe(EXIT_OK);
    expect(stub.requests.map((r) => r.body)).toEqual([
      { input: { expression: '1 + 1' } },
      { input: { expression: '2 + 2' } },
    ]);
  });

  test.each([
    ['a bad tool name', 'Calc!', '{}', {}, /'Calc!' is not a tool name/],
    ['JSON that does not parse', 'calculator', '{nope', {}, /the input argument is not valid JSON/],
    [
      'JSON with a prototype key (the one JSON ladder, issue 30)',
      'calculator',
      '{"__proto__":{"expression":"1"}}',
      {},
      /the input argument is JSON with a `__proto__` key at __proto__/,
    ],
    ['input twice', 'calculator', '{}', { inputFile: '/x' }, /not both/],
    [
      'a missing input file',
      'calculator',
      undefined,
      { inputFile: '/nonexistent/in.json' },
      /cannot read \/nonexistent\/in\.json \(ENOENT\)/,
    ],
  ])('%s is a usage error (exit 2), nothing sent', async (_name, tool, json, extra, message) => {
    const out = io();
    expect(await runInvoke(tool, json, { ...flags(), ...extra }, out)).toBe(EXIT_USAGE);
    expect(out.stderr[0]).toMatch(message);
    expect(stub.requests).toHaveLength(0);
  });
});

describe('caesar confirm / reject', () => {
  test('confirm approves the call and exits 0 when it ran', async () => {
    const out = io();
    expect(await runConfirm('conf-1', true, flags(), out)).toBe(EXIT_OK);
    expect(stub.requests[0]).toMatchObject({
      url: '/v1/confirmations/conf-1',
      body: { approve: true },
    });
    expect(out.stdout[0]).toBe('call_service: ok (decision dec-1, 3 ms)');
  });

  test('reject cancels the call and exits 0 when it was rejected', async () => {
    const out = io();
    expect(await runConfirm('conf-1', false, flags(), out)).toBe(EXIT_OK);
    expect(stub.requests[0]!.body).toEqual({ approve: false });
    expect(out.stdout).toEqual([
      'call_service: rejected (decision dec-1, 3 ms)',
      'reason: rejected by operator',
    ]);
  });

  test('reject --stop-turn asks for the stop and says what it did', async () => {
    stub.route(/confirmations/, () => ({
      status: 200,
      body: {
        ...report({ tool: 'calculator', outcome: 'rejected', reason: 'rejected by operator' }),
        decision: 'rejected',
        stopped: true,
        also_rejected: [{ id: 'conf-2', tool: 'calculator', decision_id: 'dec-2' }],
      },
    }));
    const out = io();
    expect(await runConfirm('conf-1', false, { ...flags(), stopTurn: true }, out)).toBe(EXIT_OK);
    expect(stub.requests[0]!.body).toEqual({ approve: false, stop_turn: true });
    expect(out.stdout.at(-1)).toBe(
      'stopped the turn: the model is not asked again; also rejected: conf-2 (calculator)',
    );
  });

  test('reject --stop-turn of a call no turn waited for says it was a plain rejection', async () => {
    stub.route(/confirmations/, () => ({
      status: 200,
      body: {
        ...report({ tool: 'calculator', outcome: 'rejected' }),
        decision: 'rejected',
        stopped: false,
      },
    }));
    const out = io();
    expect(await runConfirm('conf-1', false, { ...flags(), stopTurn: true }, out)).toBe(EXIT_OK);
    expect(out.stdout.at(-1)).toBe('no model turn waited for this call: it was a plain rejection');
  });

  test('confirm without an id lists what waits; an empty list says so', async () => {
    stub.route(/^GET \/v1\/confirmations$/, () => ({ status: 200, body: [] }));
    const out = io();
    expect(await runConfirmList(flags(), out)).toBe(EXIT_OK);
    expect(stub.requests[0]).toMatchObject({ method: 'GET', url: '/v1/confirmations' });
    expect(out.stdout).toEqual(['nothing is waiting for approval']);
  });

  test('an approved call that then fails exits 1', async () => {
    stub.route(/confirmations/, () => ({
      status: 200,
      body: report({ tool: 'call_service', outcome: 'denied', reason: 'policy reloaded' }),
    }));
    expect(await runConfirm('conf-1', true, flags(), io())).toBe(EXIT_FAILED);
  });

  test.each([true, false])(
    'an unknown id (approve %s) is exit 1 with what may have happened',
    async (approve) => {
      const out = io();
      expect(await runConfirm('conf-9', approve, flags(), out)).toBe(EXIT_FAILED);
      expect(out.stderr).toEqual([
        `caesar ${approve ? 'confirm' : 'reject'}: no pending confirmation conf-9 (expired, already used, or voided by a policy reload)`,
      ]);
    },
  );
});

describe('secrets', () => {
  test('no command prints the token, whatever happens', async () => {
    const outs = [io(), io(), io(), io()];
    await runChat(['what is 17 * 23'], { ...flags(), verbose: true }, outs[0]);
    await runInvoke('call_service', '{}', flags(), outs[1]);
    stub.route(/./, () => httpError(401, 'unauthorized', 'bad token'));
    await runChat(['hi'], flags(), outs[2]);
    await runConfirm('conf-1', true, { ...flags(), json: true }, outs[3]);
    for (const o of outs) expect(o.all()).not.toContain(TOKEN);
    expect(outs.every((o) => o.all().length > 0)).toBe(true);
  });
});
