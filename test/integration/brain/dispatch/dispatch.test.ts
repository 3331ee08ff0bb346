import type { Msg, NatsConnection } from '@nats-io/nats-core';
import { createUser } from '@nats-io/nkeys';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createDispatcher, type Dispatcher } from '../../../../src/brain/dispatch/index.js';
import { serveTools, type ToolWorker } from '../../../../src/legion/index.js';
import {
  DISPATCH_QUEUE_GROUP,
  DispatchRequestSchema,
  HEADERS,
  dispatchSubject,
} from '../../../../src/protocol/index.js';
import { GrantSigner, GrantVerifier } from '../../../../src/protocol/grant.js';
import { SubjectTokenError } from '../../../../src/protocol/subjects.js';
import { createEchoTool, ExecutionLog } from '../../../fixtures/tools.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const inSeconds = (s: number) => Date.now() + s * 1000;

describe('dispatch client', () => {
  let nats: TestNats;
  let nc: NatsConnection;
  let dispatcher: Dispatcher;
  const workers: ToolWorker[] = [];

  beforeEach(async () => {
    nats = await startNats();
    nc = await nats.connect();
    dispatcher = createDispatcher({ nc });
  });
  afterEach(async () => {
    await Promise.allSettled(workers.splice(0).map((w) => w.stop()));
    await nats?.stop();
  });

  /** A raw responder on a tool's dispatch subject, in the tool's queue group. */
  async function rawResponder(tool: string, onMsg: (msg: Msg) => void): Promise<void> {
    const c = await nats.connect();
    c.subscribe(dispatchSubject(tool), {
      queue: DISPATCH_QUEUE_GROUP,
      callback: (_e, m) => onMsg(m),
    });
    await c.flush();
  }

  test('two instances share 200 calls and each call runs exactly once', async () => {
    const log = new ExecutionLog();
    const tool = createEchoTool({ onExecute: log.record });
    const a = await serveTools([tool], { nc: await nats.connect(), host: 'a' });
    const b = await serveTools([tool], { nc: await nats.connect(), host: 'b' });
    workers.push(a, b);

    const ids = Array.from({ length: 200 }, (_, i) => `call-${i}`);
    const repliedBy = new Map<string, string>();
    const queue = [...ids];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
          const reply = await dispatcher.dispatch(
            'echo',
            { id, text: id },
            {
              decisionId: `d-${id}`,
              deadline: inSeconds(5),
            },
          );
          if (!reply.success) throw new Error(`${id} failed: ${reply.error.code}`);
          expect(reply.result).toMatchObject({ id, text: id });
          repliedBy.set(id, reply.worker.id);
        }
      }),
    );

    for (const id of ids) expect(log.timesRun(id), id).toBe(1);
    const perInstance = log.perInstance();
    const idA = a.instances[0]!.id;
    const idB = b.instances[0]!.id;
    expect([...perInstance.keys()].sort()).toEqual([idA, idB].sort());
    expect(perInstance.get(idA)).toBeGreaterThan(0);
    expect(perInstance.get(idB)).toBeGreaterThan(0);
    expect(perInstance.get(idA)! + perInstance.get(idB)!).toBe(200);
    expect([...repliedBy.values()].filter((w) => w === idA)).toHaveLength(perInstance.get(idA)!);
  });

  test('a call to a tool with no instance fails with no_worker well under a second', async () => {
    const started = performance.now();
    const reply = await dispatcher.dispatch(
      'nobody_home',
      { id: 'x' },
      {
        decisionId: 'd1',
        deadline: inSeconds(10),
      },
    );
    const elapsed = performance.now() - started;
    expect(reply).toMatchObject({
      v: 1,
      success: false,
      error: {
        code: 'no_worker',
        message: 'no live instance of nobody_home: no instance is connected',
        retryable: true,
      },
    });
    expect(reply).not.toHaveProperty('worker');
    expect(elapsed).toBeLessThan(2_000); // at once, not at the 10 s deadline
  });

  test('no answer by the deadline gives dispatch_timeout at the deadline', async () => {
    let received = 0;
    await rawResponder('silent', () => received++);
    const started = performance.now();
    const reply = await dispatcher.dispatch(
      'silent',
      {},
      {
        decisionId: 'd1',
        deadline: Date.now() + 200,
      },
    );
    const elapsed = performance.now() - started;
    expect(reply).toMatchObject({ success: false, error: { code: 'dispatch_timeout' } });
    expect(received).toBe(1);
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(2_000);
  });

  test('a deadline already past fails with dispatch_timeout without sending', async () => {
    let received = 0;
    await rawResponder('late', () => received++);
    const reply = await dispatcher.dispatch(
      'late',
      {},
      {
        decisionId: 'd1',
        deadline: Date.now() - 1,
      },
    );
    expect(reply).toMatchObject({ success: false, error: { code: 'dispatch_timeout' } });
    await nc.flush();
    expect(received).toBe(0);
  });

  test.each([
    ['bytes that are not JSON', enc.encode('\u0000garbage{')],
    ['JSON that is no envelope', enc.encode(JSON.stringify({ hello: 'world' }))],
    ['an envelope of another version', enc.encode(JSON.stringify({ v: 2, success: true }))],
    [
      'a failure with a code outside the catalogue',
      enc.encode(
        JSON.stringify({
          v: 1,
          success: false,
          error: { code: 'exploded', message: 'x', retryable: false },
          duration_ms: 1,
        }),
      ),
    ],
    [
      'a success without its worker',
      enc.encode(JSON.stringify({ v: 1, success: true, result: 1, duration_ms: 1 })),
    ],
    ['an empty body', new Uint8Array(0)],
  ])('a reply made of %s is bad_reply', async (_what, body) => {
    await rawResponder('garbage', (m) => m.respond(body));
    const reply = await dispatcher.dispatch(
      'garbage',
      {},
      {
        decisionId: 'd1',
        deadline: inSeconds(5),
      },
    );
    expect(reply).toMatchObject({
      v: 1,
      success: false,
      error: { code: 'bad_reply', retryable: false },
    });
  });

  test('the request carries the envelope, the decision id, the traceparent header and a grant a verifier accepts', async () => {
    const brain = createUser();
    const signer = new GrantSigner(brain.getSeed());
    const signing = createDispatcher({ nc, signer });
    let seen: Msg | undefined;
    await rawResponder('inspect', (m) => {
      seen = m;
      m.respond(
        enc.encode(
          JSON.stringify({
            v: 1,
            success: true,
            result: { ok: true },
            worker: { id: 'W1', host: 'h' },
            duration_ms: 0.5,
          }),
        ),
      );
    });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const deadline = inSeconds(5);
    const reply = await signing.dispatch(
      'inspect',
      { q: 1 },
      { decisionId: 'dec-42', deadline, traceparent, policySha256: 'a'.repeat(64) },
    );

    expect(reply).toEqual({
      v: 1,
      success: true,
      result: { ok: true },
      worker: { id: 'W1', host: 'h' },
      duration_ms: 0.5,
    });
    expect(seen?.headers?.get(HEADERS.decisionId)).toBe('dec-42');
    expect(seen?.headers?.get(HEADERS.traceparent)).toBe(traceparent);
    const sent = DispatchRequestSchema.parse(JSON.parse(dec.decode(seen!.data)));
    expect(sent).toEqual({
      v: 1,
      tool: 'inspect',
      input: { q: 1 },
      decision_id: 'dec-42',
      deadline,
      grant: expect.stringMatching(`^v1\\.${brain.getPublicKey()}\\.${'a'.repeat(64)}\\.`),
    });
    const verifier = new GrantVerifier({ trusted: [brain.getPublicKey()] });
    const claims = { tool: 'inspect', input: { q: 1 }, decisionId: 'dec-42', deadline };
    expect(verifier.check(sent.grant, claims)).toEqual({
      ok: true,
      brain: brain.getPublicKey(),
      policySha256: 'a'.repeat(64),
    });
  });

  test('without a trace context the decision id travels in the envelope only, with no headers', async () => {
    let seen: Msg | undefined;
    const sub = nc.subscribe(dispatchSubject('bare'), {
      callback: (_err, msg) => {
        seen = msg;
        msg.respond(
          enc.encode(
            JSON.stringify({
              v: 1,
              success: true,
              result: {},
              worker: { id: 'W', host: 'h' },
              duration_ms: 0,
            }),
          ),
        );
      },
    });
    await nc.flush();
    const reply = await dispatcher.dispatch(
      'bare',
      {},
      { decisionId: 'dec-7', deadline: inSeconds(5) },
    );
    sub.unsubscribe();
    expect(reply.success).toBe(true);
    expect(seen?.headers).toBeUndefined();
    expect(JSON.parse(dec.decode(seen!.data))).toMatchObject({ decision_id: 'dec-7' });
  });

  test("a worker's failure comes back unchanged, with its worker", async () => {
    const worker = await serveTools([createEchoTool()], { nc: await nats.connect(), host: 'w' });
    workers.push(worker);
    const reply = await dispatcher.dispatch(
      'echo',
      { id: 5 },
      {
        decisionId: 'd1',
        deadline: inSeconds(5),
      },
    );
    expect(reply).toMatchObject({
      success: false,
      error: { code: 'invalid_input', retryable: false },
      worker: { id: worker.instances[0]!.id, host: 'w' },
    });
  });

  test('an invalid tool name throws instead of being sent', async () => {
    await expect(
      dispatcher.dispatch('Not A Tool', {}, { decisionId: 'd1', deadline: inSeconds(5) }),
    ).rejects.toThrow(SubjectTokenError);
  });
});
