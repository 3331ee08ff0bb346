import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUser } from '@nats-io/nkeys';
import { afterEach, describe, expect, test } from 'vitest';
import { createDispatcher } from '../../../../src/brain/dispatch/index.js';
import { ReplyMux } from '../../../../src/brain/dispatch/reply-mux.js';
import { dispatchSubject, inboxPrefix } from '../../../../src/protocol/index.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';
import { waitFor } from '../../../helpers/wait.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

/**
 * The dispatcher's request/reply transport (ADR 0037): the endings nats.js `request()`
 * reports must all still reach the caller, and none may leave a call hanging.
 */
describe('reply mux', () => {
  let nats: TestNats | undefined;
  afterEach(async () => {
    await nats?.stop();
    nats = undefined;
  });

  test('replies reach the request that sent them, many at once and out of order', async () => {
    nats = await startNats();
    const nc = await nats.connect();
    const responder = await nats.connect();
    const held: { respond: () => void }[] = [];
    responder.subscribe('echo.slowly', {
      callback: (_e, m) => {
        held.push({ respond: () => m.respond(m.data) });
      },
    });
    await responder.flush();
    const mux = new ReplyMux(nc);
    const calls = Array.from({ length: 50 }, (_, i) =>
      mux.request('echo.slowly', enc.encode(`call-${i}`), 5000),
    );
    await waitFor(() => held.length === 50, 'the responder to hold all 50 requests');
    // answer in reverse order
    for (const h of held.reverse()) h.respond();
    const outcomes = await Promise.all(calls);
    expect(outcomes.map((o) => (o.kind === 'reply' ? dec.decode(o.msg.data) : o.kind))).toEqual(
      Array.from({ length: 50 }, (_, i) => `call-${i}`),
    );
    expect(mux.size).toBe(0);
  });

  test('each reply subject ends in a token of 128 random bits: nothing repeats, nothing counts up', async () => {
    // Issue 26, finding 2: a sequential token let a client that saw one reply subject write
    // the next call's answer before the worker did.
    nats = await startNats();
    const nc = await nats.connect();
    const responder = await nats.connect();
    const subjects: string[] = [];
    responder.subscribe('echo.tokens', {
      callback: (_e, m) => {
        subjects.push(m.reply!);
        m.respond(m.data);
      },
    });
    await responder.flush();
    const mux = new ReplyMux(nc);
    for (let i = 0; i < 500; i++) await mux.request('echo.tokens', enc.encode('x'), 5000);
    const base = subjects[0]!.slice(0, subjects[0]!.lastIndexOf('.') + 1);
    const tokens = subjects.map((s) => {
      expect(s.startsWith(base)).toBe(true);
      return s.slice(base.length);
    });
    for (const t of tokens) expect(t).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
    // as numbers, one token says nothing about the next: no constant or small step
    const values = tokens.map((t) => BigInt(`0x${Buffer.from(t, 'base64url').toString('hex')}`));
    const steps = new Set(values.slice(1).map((v, i) => v - values[i]!));
    expect(steps.size).toBe(values.length - 1);
    const small = [...steps].filter((d) => (d < 0n ? -d : d) < 2n ** 64n);
    expect(small).toEqual([]);
  });

  test('no subscriber: no_responders at once; nobody answering: timeout, and a late reply is dropped', async () => {
    nats = await startNats();
    const nc = await nats.connect();
    const mux = new ReplyMux(nc);
    const started = Date.now();
    expect(await mux.request('nobody.here', enc.encode('x'), 5000)).toEqual({
      kind: 'no_responders',
    });
    expect(Date.now() - started).toBeLessThan(1000);

    const responder = await nats.connect();
    let late: (() => void) | undefined;
    responder.subscribe('answers.late', {
      callback: (_e, m) => {
        late = () => m.respond(m.data);
      },
    });
    await responder.flush();
    expect(await mux.request('answers.late', enc.encode('x'), 100)).toEqual({ kind: 'timeout' });
    late?.();
    await responder.flush();
    expect(mux.size).toBe(0);
  });

  test('a publish the server refuses rejects with the permissions violation, not a timeout', async () => {
    const kp = createUser();
    const dir = await mkdtemp(join(tmpdir(), 'caesar-mux-'));
    const seedFile = join(dir, 'me.nk');
    await writeFile(seedFile, dec.decode(kp.getSeed()), { mode: 0o600 });
    const permissions = {
      publish: { allow: [dispatchSubject('allowed')] },
      subscribe: { allow: ['_INBOX.me.>'] },
    };
    nats = await startNats({
      config: `authorization: ${JSON.stringify({ users: [{ nkey: kp.getPublicKey(), permissions }] })}\n`,
    });
    const nc = await nats.connect({
      auth: { kind: 'nkey', seedFile },
      inboxPrefix: inboxPrefix('me'),
    });
    await rm(dir, { recursive: true, force: true });
    const dispatcher = createDispatcher({ nc });
    const started = Date.now();
    await expect(
      dispatcher.dispatch('forbidden', {}, { decisionId: 'd', deadline: Date.now() + 10_000 }),
    ).rejects.toThrow(/Permissions Violation for Publish/i);
    expect(Date.now() - started).toBeLessThan(5000);
    // the allowed subject still works through the same inbox: no_worker, not a timeout
    const reply = await dispatcher.dispatch(
      'allowed',
      {},
      { decisionId: 'd', deadline: Date.now() + 10_000 },
    );
    expect(reply).toMatchObject({ success: false, error: { code: 'no_worker' } });
  });

  test('closing the connection rejects the calls in flight', async () => {
    nats = await startNats();
    const nc = await nats.connect();
    const responder = await nats.connect();
    responder.subscribe('never.answers', { callback: () => undefined });
    await responder.flush();
    const mux = new ReplyMux(nc);
    const pending = mux.request('never.answers', enc.encode('x'), 60_000);
    await nc.flush();
    await nc.close();
    await expect(pending).rejects.toThrow(/closed/);
    await expect(mux.request('never.answers', enc.encode('x'), 1000)).rejects.toThrow();
  });
});
