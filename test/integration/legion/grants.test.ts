import type { NatsConnection } from '@nats-io/nats-core';
import { createUser, type KeyPair } from '@nats-io/nkeys';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDispatcher } from '../../../src/brain/dispatch/index.js';
import { serveTools, type ToolWorker } from '../../../src/legion/index.js';
import {
  DispatchReplySchema,
  dispatchSubject,
  type DispatchReply,
  type DispatchRequest,
} from '../../../src/protocol/index.js';
import { GrantSigner, GrantVerifier } from '../../../src/protocol/grant.js';
import { createEchoTool, ExecutionLog } from '../../fixtures/tools.js';
import { startNats, type TestNats } from '../../helpers/nats.js';

// Issue 14, scope 4: a worker that requires grants runs only calls a trusted brain signed for
// exactly that tool, input, decision and deadline, once. Each refusal is a `grant_rejected`
// reply and no execution.

const POLICY = 'c'.repeat(64);
const inSeconds = (s: number) => Date.now() + s * 1000;

describe('signed dispatch grants', () => {
  let nats: TestNats;
  let nc: NatsConnection;
  let worker: ToolWorker;
  let other: ToolWorker;
  const log = new ExecutionLog();
  const brain: KeyPair = createUser();
  const next: KeyPair = createUser(); // the brain's key after a rotation
  const stranger: KeyPair = createUser();
  let signer: GrantSigner;
  let seq = 0;

  beforeAll(async () => {
    nats = await startNats();
    nc = await nats.connect();
    signer = new GrantSigner(brain.getSeed());
    const grants = new GrantVerifier({ trusted: [brain.getPublicKey(), next.getPublicKey()] });
    worker = await serveTools([createEchoTool({ onExecute: log.record })], {
      nc: await nats.connect(),
      grants,
    });
    other = await serveTools([createEchoTool({ name: 'echo2', onExecute: log.record })], {
      nc: await nats.connect(),
      grants,
    });
  });
  afterAll(async () => {
    await Promise.allSettled([worker?.stop(), other?.stop()]);
    await nats?.stop();
  });

  /** A fresh call: its own id (the echo tool's input) and decision id. */
  function call(tool = 'echo'): DispatchRequest & { input: { id: string; text: string } } {
    seq += 1;
    return {
      v: 1,
      tool,
      input: { id: `call-${seq}`, text: `hello ${seq}` },
      decision_id: `dec-${seq}`,
      deadline: inSeconds(10),
    };
  }

  function signed<T extends DispatchRequest>(req: T, by: GrantSigner = signer): T {
    const grant = by.sign({
      tool: req.tool,
      input: req.input,
      decisionId: req.decision_id,
      deadline: req.deadline,
      policySha256: POLICY,
    });
    return { ...req, grant };
  }

  /** Publishes an envelope as any client allowed on the subject could, and reads the reply. */
  async function raw(req: DispatchRequest, subject = dispatchSubject(req.tool)) {
    const msg = await nc.request(subject, JSON.stringify(req), { timeout: 10_000 });
    return DispatchReplySchema.parse(JSON.parse(new TextDecoder().decode(msg.data)));
  }

  function expectRejected(reply: DispatchReply, reason: RegExp): void {
    expect(reply).toMatchObject({
      success: false,
      error: { code: 'grant_rejected', retryable: false, message: expect.stringMatching(reason) },
    });
  }

  test("the brain's dispatcher signs, and the worker runs the call once", async () => {
    const dispatcher = createDispatcher({ nc, signer });
    const reply = await dispatcher.dispatch(
      'echo',
      { id: 'via-dispatcher', text: 'hi' },
      { decisionId: 'dec-dispatcher', deadline: inSeconds(10), policySha256: POLICY },
    );
    expect(reply).toMatchObject({ success: true, result: { id: 'via-dispatcher', text: 'hi' } });
    expect(log.timesRun('via-dispatcher')).toBe(1);
  });

  test('a raw publish of a valid-looking envelope without a grant is refused and not run', async () => {
    const req = call();
    expectRejected(await raw(req), /carries no grant/);
    expect(log.timesRun(req.input.id)).toBe(0);
  });

  test('a dispatcher without a signer (a brain with no NKEY) is refused the same way', async () => {
    const unsigned = createDispatcher({ nc });
    const reply = await unsigned.dispatch(
      'echo',
      { id: 'unsigned', text: 'x' },
      { decisionId: 'dec-unsigned', deadline: inSeconds(10), policySha256: POLICY },
    );
    expectRejected(reply, /carries no grant/);
    expect(log.timesRun('unsigned')).toBe(0);
  });

  test('a grant copied onto another input is refused', async () => {
    const req = signed(call());
    const tampered = { ...req, input: { ...req.input, text: 'unlock the front door' } };
    expectRejected(await raw(tampered), /does not match this call/);
    expect(log.timesRun(req.input.id)).toBe(0);
  });

  test('a grant for one tool, sent to another tool, is refused', async () => {
    const req = signed(call('echo'));
    expectRejected(await raw({ ...req, tool: 'echo2' }), /does not match this call/);
    expect(log.timesRun(req.input.id)).toBe(0);
  });

  test('a grant with its deadline or decision id changed is refused', async () => {
    const req = signed(call());
    expectRejected(await raw({ ...req, deadline: req.deadline + 60_000 }), /does not match/);
    expectRejected(await raw({ ...req, decision_id: 'dec-other' }), /does not match/);
    expect(log.timesRun(req.input.id)).toBe(0);
  });

  test('a grant signed by a key the worker does not trust is refused, naming the key', async () => {
    const req = signed(call(), new GrantSigner(stranger.getSeed()));
    expectRejected(await raw(req), new RegExp(`${stranger.getPublicKey()}.*trusted_brains`));
    // a forged signature under a trusted key id
    const good = signed(call());
    const [v, kid, sha, sig] = good.grant!.split('.');
    const flipped = `${sig!.startsWith('A') ? 'B' : 'A'}${sig!.slice(1)}`;
    expectRejected(
      await raw({ ...good, grant: [v, kid, sha, flipped].join('.') }),
      /does not match/,
    );
    expectRejected(await raw({ ...good, grant: 'v1.garbage' }), /not a v1 or v2 grant/);
    expect(log.timesRun(req.input.id) + log.timesRun(good.input.id)).toBe(0);
  });

  test('a replayed grant is refused; the call ran once', async () => {
    const req = signed(call());
    expect(await raw(req)).toMatchObject({ success: true, result: { id: req.input.id } });
    expectRejected(await raw(req), /already run: a replayed grant/);
    expect(log.timesRun(req.input.id)).toBe(1);
  });

  test('an expired grant is refused', async () => {
    const req = signed({ ...call(), deadline: Date.now() - 1000 });
    expectRejected(await raw(req), /grant expired/);
    expect(log.timesRun(req.input.id)).toBe(0);
  });

  test('key rotation: grants of both trusted keys run', async () => {
    const rotated = new GrantSigner(next.getSeed());
    const a = signed(call());
    const b = signed(call(), rotated);
    expect(await raw(a)).toMatchObject({ success: true });
    expect(await raw(b)).toMatchObject({ success: true });
    expect(log.timesRun(a.input.id)).toBe(1);
    expect(log.timesRun(b.input.id)).toBe(1);
  });
});

describe('GrantVerifier', () => {
  const brain = createUser();
  const signer = new GrantSigner(brain.getSeed());
  const claims = (decisionId: string, deadline: number) => ({
    tool: 'echo',
    input: { b: [1, 2, { c: 'ü' }], a: null },
    decisionId,
    deadline,
  });
  const grant = (decisionId: string, deadline: number) =>
    signer.sign({ ...claims(decisionId, deadline), policySha256: POLICY });

  test('the input is bound by value, not by key order', () => {
    const v = new GrantVerifier({ trusted: [brain.getPublicKey()] });
    const g = grant('d1', 10_000);
    const reordered = { ...claims('d1', 10_000), input: { a: null, b: [1, 2, { c: 'ü' }] } };
    expect(
      new GrantVerifier({ trusted: [brain.getPublicKey()], now: () => 0 }).check(g, reordered),
    ).toMatchObject({ ok: true });
    expect(v.check(g, { ...reordered, input: { a: null, b: [2, 1, { c: 'ü' }] } })).toMatchObject({
      ok: false,
    });
  });

  test('remembers at most maxRemembered live decisions, fails closed when full, forgets expired ones', () => {
    let now = 0;
    const v = new GrantVerifier({
      trusted: [brain.getPublicKey()],
      maxRemembered: 2,
      now: () => now,
    });
    expect(v.check(grant('d1', 100), claims('d1', 100))).toMatchObject({ ok: true });
    expect(v.check(grant('d2', 200), claims('d2', 200))).toMatchObject({ ok: true });
    expect(v.check(grant('d3', 300), claims('d3', 300))).toEqual({
      ok: false,
      reason: expect.stringMatching(/2 grants are live at once/),
    });
    now = 150; // d1 expired: its slot is free, and its grant is now refused as expired
    expect(v.check(grant('d3', 300), claims('d3', 300))).toMatchObject({ ok: true });
    expect(v.remembered).toBe(2);
    expect(v.check(grant('d1', 100), claims('d1', 100))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/expired/),
    });
  });

  test('refuses a trusted list entry that is not an NKEY public key', () => {
    expect(() => new GrantVerifier({ trusted: ['UNOTAKEY'] })).toThrow(
      /not an NKEY user public key/,
    );
    const corrupt = `${brain.getPublicKey().slice(0, -1)}${brain.getPublicKey().endsWith('A') ? 'B' : 'A'}`;
    expect(() => new GrantVerifier({ trusted: [corrupt] })).toThrow(/not an NKEY user public key/);
  });

  test('a signer refuses a seed that is not a user seed', () => {
    expect(() => new GrantSigner(new TextEncoder().encode('SAAXXX'))).toThrow();
  });
});
