import type { Msg, NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { serveTools, type ToolWorker } from '../../../src/legion/index.js';
import {
  DispatchReplySchema,
  HEADERS,
  REGISTRY_BYE_SUBJECT,
  REGISTRY_HELLO_SUBJECT,
  SRV_METADATA,
  dispatchSubject,
  serviceName,
  srvSubject,
  SrvStatsSchema,
} from '../../../src/protocol/index.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { errorOf, rawDispatch } from '../../helpers/dispatch.js';
import { waitFor } from '../../helpers/wait.js';
import { createEchoTool } from '../../fixtures/tools.js';
import { probeTool } from './tools.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

let nats: TestNats;
let nc: NatsConnection;
let worker: ToolWorker;

beforeAll(async () => {
  nats = await startNats();
  nc = await nats.connect();
  worker = await serveTools([probeTool], { nc: await nats.connect(), host: 'test-host' });
});
afterAll(async () => {
  await worker?.stop();
  await nats?.stop();
});

const call = (input: unknown, opts: { deadlineMs?: number; tool?: string } = {}) =>
  rawDispatch(nc, 'probe', input, { deadlineMs: opts.deadlineMs, envelopeTool: opts.tool });

describe('dispatch endpoint', () => {
  test('a valid call is answered with the result, the worker ref and a duration', async () => {
    const { reply, msg } = await call({ text: 'hi' });
    expect(reply).toMatchObject({ v: 1, success: true, result: { echo: 'hi' } });
    expect(reply.worker).toEqual({ id: worker.instances[0]!.id, host: 'test-host' });
    expect(msg.headers?.get(HEADERS.serviceError) ?? '').toBe('');
  });

  test.each([
    [{ text: 5 }, 'text'],
    [{ text: 'x', sleepMs: -1 }, 'sleepMs'],
    [{ text: 'x', extra: true }, 'extra'],
    [{}, 'text'],
  ])('input %j is refused with invalid_input naming %s', async (input, path) => {
    const { reply, msg } = await call(input);
    const error = errorOf(reply);
    expect(error.code).toBe('invalid_input');
    expect((error.details as { path: string }[]).map((d) => d.path)).toContain(path);
    expect(msg.headers?.get(HEADERS.serviceErrorCode)).toBe('400');
    // the catalogue's words: the tool, then the field at fault
    expect(error.message).toMatch(new RegExp(`^invalid input for probe: .*${path}`));
    expect(msg.headers?.get(HEADERS.serviceError)).toBe(error.message);
  });

  test('a malformed envelope is answered with invalid_input, not silence', async () => {
    const msg = await nc.request(dispatchSubject('probe'), enc.encode('{not json'), {
      timeout: 2000,
    });
    const reply = DispatchReplySchema.parse(JSON.parse(dec.decode(msg.data)));
    expect(errorOf(reply).code).toBe('invalid_input');
  });

  test('an envelope naming another tool is refused', async () => {
    const { reply } = await call({ text: 'x' }, { tool: 'other' });
    expect(errorOf(reply).message).toMatch(/names tool 'other'/);
  });

  test('a handler that throws asynchronously is answered with internal at once, not a timeout', async () => {
    const { reply, elapsedMs } = await call(
      { text: 'x', mode: 'throw_async' },
      { deadlineMs: 4000 },
    );
    expect(errorOf(reply)).toMatchObject({ code: 'internal', retryable: false });
    expect(errorOf(reply).message).toMatch(/async boom/);
    expect(elapsedMs).toBeLessThan(2000);
  });

  test('a handler that throws synchronously is answered with internal', async () => {
    const { reply } = await call({ text: 'x', mode: 'throw_sync' });
    expect(errorOf(reply).message).toMatch(/sync boom/);
  });

  test('a coded error keeps its code and retryable flag', async () => {
    const { reply, msg } = await call({ text: 'x', mode: 'backend' });
    expect(errorOf(reply)).toMatchObject({ code: 'backend_error', retryable: true });
    expect(msg.headers?.get(HEADERS.serviceErrorCode)).toBe('502');
  });

  test('output that breaks the output schema is an internal error', async () => {
    const { reply } = await call({ text: 'x', mode: 'bad_output' });
    expect(errorOf(reply).code).toBe('internal');
  });

  test('the deadline is enforced with timeout and the worker keeps serving', async () => {
    const { reply, elapsedMs } = await call({ text: 'x', sleepMs: 5000 }, { deadlineMs: 300 });
    expect(errorOf(reply)).toMatchObject({ code: 'timeout', retryable: true });
    expect(elapsedMs).toBeLessThan(2500);
    const next = await call({ text: 'after' });
    expect(next.reply).toMatchObject({ success: true, result: { echo: 'after' } });
  });

  test('a call whose deadline already passed is not run', async () => {
    const { reply } = await call({ text: 'x' }, { deadlineMs: -10 });
    expect(errorOf(reply).message).toMatch(/after its deadline/);
  });

  test('beyond the concurrency cap and the queue, calls get overloaded at once', async () => {
    // cap 2 + queue 2: six slow calls at once leave two overloaded.
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => call({ text: 'x', sleepMs: 400 }, { deadlineMs: 4000 })),
    );
    const codes = replies.map((r) => (r.reply.success ? 'ok' : r.reply.error.code)).sort();
    expect(codes).toEqual(['ok', 'ok', 'ok', 'ok', 'overloaded', 'overloaded']);
    // "At once": each refusal arrives before any admitted call has finished its 400 ms.
    const overloaded = replies.filter((r) => !r.reply.success);
    const firstOk = Math.min(...replies.filter((r) => r.reply.success).map((r) => r.elapsedMs));
    expect(firstOk).toBeGreaterThanOrEqual(400);
    for (const r of overloaded) expect(r.elapsedMs).toBeLessThan(firstOk);
  });

  test('STATS report true processing time for async handlers', async () => {
    const before = await stats();
    await call({ text: 'x', sleepMs: 200 });
    const after = await stats();
    expect(after.num_requests).toBe(before.num_requests + 1);
    // at least the 200 ms the handler awaited, in nanoseconds
    expect(after.processing_time - before.processing_time).toBeGreaterThanOrEqual(190e6);
  });
});

async function stats() {
  const inst = worker.instances[0]!;
  const msg = await nc.request(srvSubject('STATS', inst.service, inst.id), undefined, {
    timeout: 2000,
  });
  const parsed = SrvStatsSchema.parse(JSON.parse(dec.decode(msg.data)));
  return parsed.endpoints.find((e) => e.name === 'dispatch')!;
}

describe('lifecycle', () => {
  test('start publishes hello; graceful stop finishes in-flight calls, then publishes bye', async () => {
    await using local = await startNats();
    const client = await local.connect();
    const seen: string[] = [];
    const hello = client.subscribe(REGISTRY_HELLO_SUBJECT, {
      callback: (_e, m: Msg) => void seen.push(`hello:${dec.decode(m.data)}`),
    });
    const bye = client.subscribe(REGISTRY_BYE_SUBJECT, {
      callback: (_e, m: Msg) => void seen.push(`bye:${dec.decode(m.data)}`),
    });
    await client.flush();
    const w = await serveTools([probeTool], {
      nc: await local.connect(),
      host: 'h1',
      graceMs: 3000,
    });
    const inFlight = rawDispatch(
      client,
      'probe',
      { text: 'slow', sleepMs: 300 },
      { deadlineMs: 3000 },
    );
    await waitFor(() => w.inFlight() === 1, 'the call to be in flight');
    await w.stop();
    const { reply } = await inFlight;
    expect(reply).toMatchObject({ success: true, result: { echo: 'slow' } });
    await client.flush();
    expect(seen[0]).toMatch(/^hello:.*"tool":"probe"/);
    expect(seen.at(-1)).toMatch(/^bye:.*"instance_id":"/);
    // After stop nobody serves the subject: NATS answers no-responders at once.
    await expect(
      client.request(dispatchSubject('probe'), enc.encode('{}'), { timeout: 1000 }),
    ).rejects.toThrow(/no responders/i);
    hello.unsubscribe();
    bye.unsubscribe();
  });

  test('calls still running when the grace period ends are cut off with timeout', async () => {
    await using local = await startNats();
    const client = await local.connect();
    const w = await serveTools([probeTool], { nc: await local.connect(), graceMs: 200 });
    const inFlight = rawDispatch(
      client,
      'probe',
      { text: 's', sleepMs: 4000 },
      { deadlineMs: 4500 },
    );
    await waitFor(() => w.inFlight() === 1, 'the call to be in flight');
    const t0 = Date.now();
    await w.stop();
    expect(Date.now() - t0).toBeLessThan(2000);
    const { reply } = await inFlight;
    expect(errorOf(reply).message).toMatch(/shutting down/);
  });
});

describe('start', () => {
  test('no callable listens until every start hook has run; a failed start serves nothing', async () => {
    await using local = await startNats();
    const client = await local.connect();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let waiting = false;
    const gated = {
      ...createEchoTool({ name: 'gated' }),
      start: async () => {
        waiting = true;
        await gate;
      },
    };
    const serving = serveTools([createEchoTool({ name: 'first' }), gated], {
      nc: await local.connect(),
    });
    await waitFor(() => waiting, "the second tool's start hook to run");
    // the first tool started long ago; a sweep now finds none of this worker's tools
    await expect(
      client.request(srvSubject('PING', serviceName('first')), undefined, { timeout: 1000 }),
    ).rejects.toThrow(/no responders/i);
    await expect(rawDispatch(client, 'first', { id: 'early' })).rejects.toThrow(/no responders/i);
    open();
    const w = await serving;
    try {
      const { reply } = await rawDispatch(client, 'first', { id: 'now' });
      expect(reply).toMatchObject({ success: true, result: { id: 'now' } });
      const infos = await Promise.all(
        ['first', 'gated'].map(async (t) =>
          (await client.request(srvSubject('INFO', serviceName(t)))).json(),
        ),
      );
      expect(
        infos.map((i) => (i as { metadata: Record<string, string> }).metadata[SRV_METADATA.tool]),
      ).toEqual(['first', 'gated']);
    } finally {
      await w.stop();
    }

    // a start hook that fails: the tools before it were never served, and their stop ran
    let stopped = 0;
    const first = { ...createEchoTool({ name: 'first' }), stop: () => void stopped++ };
    const broken = {
      ...createEchoTool({ name: 'broken' }),
      start: () => Promise.reject(new Error('no device')),
    };
    await expect(serveTools([first, broken], { nc: await local.connect() })).rejects.toThrow(
      'no device',
    );
    expect(stopped).toBe(1);
    await expect(rawDispatch(client, 'first', { id: 'late' })).rejects.toThrow(/no responders/i);
  });
});
