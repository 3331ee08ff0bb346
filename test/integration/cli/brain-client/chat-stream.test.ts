import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { ChatEvent, ChatResponse, ToolCallReport } from '../../../../src/brain/api/index.js';
import { EXIT_FAILED, EXIT_OK } from '../../../../src/cli/brain-client/command.js';
import type { ChatCliIo } from '../../../../src/cli/commands/chat/io.js';
import { runChat } from '../../../../src/cli/commands/chat/run.js';
import {
  report,
  sseFrame,
  stackDir,
  startBrainStub,
  type BrainStub,
  type StackDir,
} from './brain-stub.js';

/**
 * `caesar chat` reading a streamed turn from a loopback brain stub: text as it arrives,
 * tool calls as lines on stderr, the end of the turn, and the failures of a stream.
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

type Line = ['out' | 'err' | 'write', string];

/** An io that records stdout lines, stderr lines and raw stdout writes in one ordered log. */
function tape(onWrite: (text: string) => void = () => undefined): ChatCliIo & { log: Line[] } {
  const log: Line[] = [];
  return {
    log,
    out: (l) => log.push(['out', l]),
    err: (l) => log.push(['err', l]),
    write: (t) => {
      log.push(['write', t]);
      onWrite(t);
    },
    interactive: false,
  };
}

const flags = () => ({ dataDir: stack.dataDir });

function response(reply: string, tool_calls: ToolCallReport[] = []): ChatResponse {
  return { session_id: 's-1', reply, tool_calls, iterations: 2, capped: false, planner: 'llm' };
}

const SEARCH = report({ tool: 'web_search', input: { q: 'weather' }, duration_ms: 812.4 });

/** The frames of a turn: a tool call and its result, with text around it. */
function searchTurn(extra: ChatEvent[] = []): string[] {
  const events: ChatEvent[] = [
    { type: 'text', delta: 'Let me check.' },
    { type: 'tool_call', call_id: 'c1', tool: 'web_search', input: { q: 'weather' } },
    { type: 'tool_result', call_id: 'c1', report: SEARCH },
    { type: 'text', delta: 'It is sunny.' },
    ...extra,
  ];
  return events.map(sseFrame);
}

function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve: (v: T) => void = () => undefined;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('caesar chat, streamed', () => {
  test('text is written as it arrives, before the turn ends', async () => {
    const gate = deferred();
    const firstWrite = deferred<string>();
    stub.route(/^POST \/v1\/chat$/, () => ({
      sse: (async function* () {
        yield sseFrame({ type: 'text', delta: 'Hel' });
        await gate.promise;
        yield sseFrame({ type: 'text', delta: 'lo' });
        yield sseFrame({ type: 'done', response: response('Hello') });
      })(),
    }));
    const out = tape((t) => firstWrite.resolve(t));
    let finished = false;
    const run = runChat(['hi'], flags(), out).then((code) => {
      finished = true;
      return code;
    });
    expect(await firstWrite.promise).toBe('Hel');
    expect(finished).toBe(false);
    gate.resolve();
    expect(await run).toBe(EXIT_OK);
    expect(out.log).toEqual([
      ['write', 'Hel'],
      ['write', 'lo'],
      ['write', '\n'],
    ]);
  });

  test('a tool call is a compact line on stderr, starting on a line of its own', async () => {
    stub.route(/^POST \/v1\/chat$/, () => ({
      sse: [...searchTurn(), sseFrame({ type: 'done', response: response('x', [SEARCH]) })],
    }));
    const out = tape();
    expect(await runChat(['weather?'], flags(), out)).toBe(EXIT_OK);
    expect(out.log).toEqual([
      ['write', 'Let me check.'],
      ['write', '\n'],
      ['err', '· web_search → ok (812 ms)'],
      ['write', 'It is sunny.'],
      ['write', '\n'],
    ]);
  });

  test.each([
    [
      'a failed call names its error code',
      report({
        tool: 'web_search',
        outcome: 'failed',
        error: { code: 'backend_error', message: 'SearXNG answered 502', retryable: true },
        duration_ms: 40,
      }),
      '· web_search → failed: backend_error (40 ms)',
    ],
    [
      'a denied call says so',
      report({ tool: 'shell', outcome: 'denied', reason: 'not listed', duration_ms: 0.4 }),
      '· shell → denied (0 ms)',
    ],
  ])('%s', async (_why, call, line) => {
    stub.route(/^POST \/v1\/chat$/, () => ({
      sse: [
        sseFrame({ type: 'tool_call', call_id: 'c1', tool: call.tool, input: {} }),
        sseFrame({ type: 'tool_result', call_id: 'c1', report: call }),
        sseFrame({ type: 'done', response: response('sorry', [call]) }),
      ],
    }));
    const out = tape();
    expect(await runChat(['hi'], flags(), out)).toBe(EXIT_OK);
    expect(out.log).toEqual([
      ['err', line],
      ['out', 'sorry'],
    ]);
  });

  test('--verbose prints the full tool line as it returns, and how the reply came about', async () => {
    stub.route(/^POST \/v1\/chat$/, () => ({
      sse: [...searchTurn(), sseFrame({ type: 'done', response: response('x', [SEARCH]) })],
    }));
    const out = tape();
    expect(await runChat(['weather?'], { ...flags(), verbose: true }, out)).toBe(EXIT_OK);
    expect(out.log).toEqual([
      ['write', 'Let me check.'],
      ['write', '\n'],
      ['err', '[tool] web_search ok (decision dec-1, 812 ms)'],
      ['write', 'It is sunny.'],
      ['write', '\n'],
      ['err', '[chat] session s-1, planner llm, 2 iteration(s)'],
    ]);
  });

  test('a reply with no streamed text (an intent reply) is printed at the end', async () => {
    const out = tape();
    expect(await runChat(['what is 17 * 23'], flags(), out)).toBe(EXIT_OK);
    expect(out.log).toEqual([
      ['err', '· calculator → ok (3 ms)'],
      ['out', '17 * 23 = 391'],
    ]);
  });

  test('the session id of the streamed answer is kept for the next message', async () => {
    const out = tape();
    const input = Readable.from(['hello\n', 'again\n']);
    expect(await runChat([], flags(), { ...out, input })).toBe(EXIT_OK);
    expect(stub.requests.map((r) => r.body)).toEqual([
      { message: 'hello' },
      { message: 'again', session_id: 'sess-new' },
    ]);
    expect(out.log.filter(([k]) => k === 'write').map(([, t]) => t)).toEqual([
      'echo: ',
      'hello',
      '\n',
      'echo: ',
      'again',
      '\n',
    ]);
  });

  test('an error event mid-answer ends the line, says why on stderr, and exits 1', async () => {
    stub.route(/^POST \/v1\/chat$/, () => ({
      sse: [
        sseFrame({ type: 'text', delta: 'Par' }),
        sseFrame({
          type: 'error',
          error: { code: 'dispatch_timeout', message: 'web_search did not answer in 10 s' },
        }),
      ],
    }));
    const out = tape();
    expect(await runChat(['hi'], flags(), out)).toBe(EXIT_FAILED);
    expect(out.log).toEqual([
      ['write', 'Par'],
      ['write', '\n'],
      [
        'err',
        'caesar chat: the brain failed mid-answer: dispatch_timeout: web_search did not answer in 10 s (request req-sse)',
      ],
    ]);
  });

  test('a stream that ends without done is a failure, exit 1', async () => {
    stub.route(/^POST \/v1\/chat$/, () => ({ sse: [sseFrame({ type: 'text', delta: 'Par' })] }));
    const out = tape();
    expect(await runChat(['hi'], flags(), out)).toBe(EXIT_FAILED);
    expect(out.log.at(-1)).toEqual([
      'err',
      'caesar chat: the answer to POST /v1/chat ended before its done event; is the brain another version?',
    ]);
  });

  test('a brain that answers plain JSON is read as before: tool lines, then the reply', async () => {
    stub.route(/^POST \/v1\/chat$/, () => ({
      status: 200,
      body: response('It is sunny.', [SEARCH]),
    }));
    const out = tape();
    expect(await runChat(['weather?'], flags(), out)).toBe(EXIT_OK);
    expect(out.log).toEqual([
      ['err', '· web_search → ok (812 ms)'],
      ['out', 'It is sunny.'],
    ]);
  });

  test('--json asks for the plain answer and prints it whole', async () => {
    const out = tape();
    expect(await runChat(['hello'], { ...flags(), json: true }, out)).toBe(EXIT_OK);
    expect(stub.requests[0]!.headers.accept).toBe('application/json');
    expect(out.log).toHaveLength(1);
    expect(JSON.parse(out.log[0]![1])).toMatchObject({ reply: 'echo: hello' });
  });
});
