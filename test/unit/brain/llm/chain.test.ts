import { describe, expect, test, vi } from 'vitest';
import { PlannerUnavailableError } from '../../../../src/brain/agent/errors.js';
import { type LlmAttemptEvent } from '../../../../src/brain/llm/index.js';
import {
  LlmError,
  type LlmProvider,
  type LlmRequest,
  type LlmResponse,
} from '../../../../src/brain/llm/types.js';
import { ProviderChain, unavailableMessage } from '../../../../src/brain/llm/chain.js';

type Step = string | LlmError | Error | ((req: LlmRequest) => Promise<LlmResponse>);

/** A provider answering from a script: a string is a text answer, an error is thrown. */
function stub(name: string, steps: Step[]): LlmProvider & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  return {
    name,
    model: `${name}-m`,
    origin: `${name}.lan`,
    requests,
    complete(req) {
      requests.push(req);
      const step = steps.shift();
      if (step === undefined) throw new Error('script ran out');
      if (typeof step === 'function') return step(req);
      if (step instanceof Error) return Promise.reject(step);
      return Promise.resolve(answer(name, step));
    },
  };
}

function answer(provider: string, text: string): LlmResponse {
  return {
    provider,
    model: `${provider}-m`,
    text,
    calls: [],
    usage: { inputTokens: 10, outputTokens: 2 },
    stopReason: 'stop',
  };
}

const fail = (
  kind: LlmError['kind'],
  summary: string,
  more: { status?: number; retryAfterMs?: number } = {},
) => new LlmError(kind, 'p', summary, { origin: 'p.lan', summary, ...more });

function setup(providers: LlmProvider[], more: { retries?: number } = {}) {
  const waits: number[] = [];
  const attempts: LlmAttemptEvent[] = [];
  const unavailable = vi.fn();
  const round = vi.fn();
  const chain = new ProviderChain({
    providers,
    retries: more.retries ?? 2,
    random: () => 0.5,
    sleep: (ms, signal) => {
      waits.push(ms);
      return signal.aborted ? Promise.reject(new Error('aborted')) : Promise.resolve();
    },
    observer: { attempt: (a) => void attempts.push(a), round, unavailable },
  });
  return { chain, waits, attempts, unavailable, round };
}

const req = (more: Partial<LlmRequest> = {}): LlmRequest => ({
  system: 's',
  messages: [{ role: 'user', text: 'hi' }],
  tools: [],
  signal: new AbortController().signal,
  ...more,
});

describe('ProviderChain', () => {
  test('a retryable failure is retried `retries` times, then the next provider is tried', async () => {
    const a = stub('a', [
      fail('server', '500 server error', { status: 500 }),
      fail('server', '500 server error', { status: 500 }),
      fail('server', '500 server error', { status: 500 }),
    ]);
    const b = stub('b', ['from b']);
    const { chain, waits, attempts, round } = setup([a, b]);

    const { response, round: r } = await chain.complete(req());

    expect(response.text).toBe('from b');
    expect(waits).toEqual([250, 500]);
    expect(attempts.map((x) => [x.provider, x.outcome, x.index, x.retry, x.failover])).toEqual([
      ['a', 'server', 0, false, false],
      ['a', 'server', 1, true, false],
      ['a', 'server', 2, true, false],
      ['b', 'ok', 3, false, true],
    ]);
    expect(r).toMatchObject({ provider: 'b', model: 'b-m', inputTokens: 10, outputTokens: 2 });
    expect(r.attempts).toHaveLength(4);
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    expect(round).toHaveBeenCalledWith(r);
  });

  test.each<[string, LlmError]>([
    ['auth', fail('auth', '401 API key refused', { status: 401 })],
    ['bad_request', fail('bad_request', '404 not found (model or URL)', { status: 404 })],
    ['connect', fail('connect', 'connection refused')],
    ['quota', fail('quota', '429 quota exhausted', { status: 429 })],
    ['bad_response', fail('bad_response', 'bad response')],
  ])('%s is not retried: the next provider is tried at once', async (_kind, err) => {
    const a = stub('a', [err]);
    const b = stub('b', ['ok']);
    const { chain, waits } = setup([a, b]);
    await chain.complete(req());
    expect(a.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  test('a Retry-After within 30 s is waited out exactly; beyond it the provider is left at once', async () => {
    const a = stub('a', [
      fail('rate_limited', '429 rate limited', { retryAfterMs: 12_000 }),
      fail('rate_limited', '429 rate limited (retry after 120 s)', { retryAfterMs: 120_000 }),
    ]);
    const b = stub('b', ['ok']);
    const { chain, waits } = setup([a, b]);
    await chain.complete(req());
    expect(waits).toEqual([12_000]);
    expect(a.requests).toHaveLength(2);
  });

  test('retries: 0 means one request per provider', async () => {
    const a = stub('a', [fail('timeout', 'timed out after 60 s')]);
    const { chain } = setup([a], { retries: 0 });
    await expect(chain.complete(req())).rejects.toThrow(PlannerUnavailableError);
    expect(a.requests).toHaveLength(1);
  });

  test('an abort while waiting to retry stops everything, as the aborted LlmError', async () => {
    const controller = new AbortController();
    const a = stub('a', [fail('server', '500 server error')]);
    const b = stub('b', ['never']);
    const chain = new ProviderChain({
      providers: [a, b],
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(new Error('AbortError')));
          controller.abort();
        }),
    });
    const err = await chain.complete(req({ signal: controller.signal })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).kind).toBe('aborted');
    expect(a.requests).toHaveLength(1);
    expect(b.requests).toHaveLength(0);
  });

  test('an aborted attempt is neither retried nor failed over', async () => {
    const a = stub('a', [fail('aborted', 'aborted')]);
    const b = stub('b', ['never']);
    const { chain, unavailable, attempts } = setup([a, b]);
    await expect(chain.complete(req())).rejects.toMatchObject({ kind: 'aborted' });
    expect(b.requests).toHaveLength(0);
    expect(attempts.map((x) => x.outcome)).toEqual(['aborted']);
    expect(unavailable).not.toHaveBeenCalled();
  });

  test('an already aborted signal makes no request', async () => {
    const a = stub('a', ['never']);
    const { chain } = setup([a]);
    await expect(chain.complete(req({ signal: AbortSignal.abort() }))).rejects.toMatchObject({
      kind: 'aborted',
    });
    expect(a.requests).toHaveLength(0);
  });

  test('text streamed by a failed attempt is declared void before the next attempt', async () => {
    const streamsThenFails = (r: LlmRequest) => {
      r.onText?.('partial ');
      return Promise.reject(fail('server', 'connection dropped mid-answer'));
    };
    const failsQuietly = () => Promise.reject(fail('server', '500 server error'));
    const a = stub('a', [streamsThenFails, failsQuietly, streamsThenFails]);
    const b = stub('b', [(r) => (r.onText?.('whole'), Promise.resolve(answer('b', 'whole')))]);
    const events: string[] = [];
    const { chain } = setup([a, b]);

    await chain.complete(
      req({
        onText: (d) => void events.push(`text:${d}`),
        onTextReset: () => void events.push('reset'),
      }),
    );

    expect(events).toEqual(['text:partial ', 'reset', 'text:partial ', 'reset', 'text:whole']);
  });

  test('when nothing answers: PlannerUnavailableError with every attempt, and the observer told', async () => {
    const a = stub('a', [
      fail('rate_limited', '429 rate limited', { status: 429 }),
      fail('rate_limited', '429 rate limited', { status: 429 }),
      fail('server', '500 server error', { status: 500 }),
    ]);
    const b = stub('b', [fail('connect', 'connection refused')]);
    const { chain, unavailable } = setup([a, b]);

    const err = (await chain.complete(req()).catch((e: unknown) => e)) as PlannerUnavailableError;

    expect(err).toBeInstanceOf(PlannerUnavailableError);
    expect(err.message).toBe(
      'no model could be reached: a (a-m at a.lan) 429 rate limited x2, 500 server error; b (b-m at b.lan) connection refused',
    );
    expect(err.attempts.map((x) => [x.provider, x.outcome, x.status])).toEqual([
      ['a', 'rate_limited', 429],
      ['a', 'rate_limited', 429],
      ['a', 'server', 500],
      ['b', 'connect', undefined],
    ]);
    expect(err.attempts[3]!.message).toBe('p at p.lan: connection refused');
    expect(unavailable).toHaveBeenCalledWith(err.attempts);
  });

  test('a provider that throws something other than an LlmError counts as a bad response', async () => {
    const a = stub('a', [new TypeError('boom')]);
    const b = stub('b', ['ok']);
    const { chain, attempts } = setup([a, b]);
    await chain.complete(req());
    expect(attempts[0]).toMatchObject({ outcome: 'bad_response', message: 'a: boom' });
  });

  test('an observer that throws is ignored', async () => {
    const chain = new ProviderChain({
      providers: [stub('a', ['ok'])],
      observer: {
        attempt: () => {
          throw new Error('metrics broke');
        },
        round: () => {
          throw new Error('metrics broke');
        },
      },
    });
    await expect(chain.complete(req())).resolves.toMatchObject({ response: { text: 'ok' } });
  });

  test('no providers: unavailable, saying so', async () => {
    await expect(new ProviderChain({ providers: [] }).complete(req())).rejects.toThrow(
      'no model could be reached: none is configured',
    );
  });
});

describe('unavailableMessage', () => {
  test.each([
    [[], 'no model could be reached: none is configured'],
    [[{ label: 'a', summary: 'x' }], 'no model could be reached: a x'],
    [
      [
        { label: 'a', summary: 'x' },
        { label: 'a', summary: 'y' },
        { label: 'a', summary: 'x' },
        { label: 'b', summary: 'z' },
        { label: 'b', summary: 'z' },
      ],
      'no model could be reached: a x, y, x; b z x2',
    ],
  ])('%j', (tried, message) => {
    expect(unavailableMessage(tried)).toBe(message);
  });
});
