import type { Msg, NatsConnection } from '@nats-io/nats-core';
import { createUser } from '@nats-io/nkeys';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createDispatcher, ReplyBinding } from '../../../../src/brain/dispatch/index.js';
import type { Refusal } from '../../../../src/brain/dispatch/reply-check.js';
import { Registry, startRegistry } from '../../../../src/brain/registry/index.js';
import { serveTools, type ToolWorker } from '../../../../src/legion/index.js';
import {
  DISPATCH_QUEUE_GROUP,
  DispatchRequestSchema,
  dispatchSubject,
  serviceName,
  srvSubject,
} from '../../../../src/protocol/index.js';
import { GrantSigner, GrantVerifier } from '../../../../src/protocol/grant.js';
import { ReplySigner } from '../../../../src/protocol/reply-signature.js';
import { createEchoTool } from '../../../fixtures/tools.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';
import { waitFor } from '../../../helpers/wait.js';

// ADR 0060 at the dispatcher: which replies bind to a call, in the mixed setups an operator
// can build (a worker that checks no grants, a brain that checks no replies, a worker
// started a moment ago, a key the brain does not pin), and how a call ends when only
// refused replies come.

const POLICY = 'b'.repeat(64);
const enc = new TextEncoder();
const dec = new TextDecoder();

describe('replies bound to their call', () => {
  let nats: TestNats;
  let nc: NatsConnection;
  const brain = createUser();
  const signer = new GrantSigner(brain.getSeed());
  const trust = () => new GrantVerifier({ trusted: [brain.getPublicKey()] });
  const workers: ToolWorker[] = [];
  const registries: Registry[] = [];
  let seq = 0;

  beforeEach(async () => {
    nats = await startNats();
    nc = await nats.connect();
  });
  afterEach(async () => {
    await Promise.allSettled(workers.splice(0).map((w) => w.stop()));
    await Promise.allSettled(registries.splice(0).map((r) => r.close()));
    await nats?.stop();
  });

  async function serve(options: { grants?: GrantVerifier; replies?: ReplySigner } = {}) {
    const w = await serveTools([createEchoTool()], { nc: await nats.connect(), ...options });
    workers.push(w);
    return w;
  }

  /** A started registry and a dispatcher that signs grants and binds replies through it. */
  async function checkedDispatcher(trusted?: Record<string, string[]>) {
    const registry = await startRegistry({ nc, sweepIntervalMs: 60_000, sweepWindowMs: 300 });
    registries.push(registry);
    const refused: Refusal[] = [];
    const dispatcher = createDispatcher({
      nc,
      signer,
      replies: new ReplyBinding({ instances: registry, ...(trusted ? { trusted } : {}) }),
      onRefusedReply: (_tool, r) => refused.push(r),
    });
    return { registry, dispatcher, refused };
  }

  const call = (deadlineMs = 5000) => {
    seq += 1;
    return {
      input: { id: `call-${seq}`, text: `hello ${seq}` },
      opts: { decisionId: `dec-${seq}`, deadline: Date.now() + deadlineMs, policySha256: POLICY },
    };
  };

  test('a worker that requires grants binds its answer with the key it agreed with the brain; the brain takes it', async () => {
    const replies = ReplySigner.ephemeral();
    const w = await serve({ grants: trust(), replies });
    const { registry, dispatcher, refused } = await checkedDispatcher();
    // the keys its own INFO subject declared
    const listed = registry.instance('echo', w.instances[0]!.id);
    expect(listed?.replyKey).toBe(replies.publicKey);
    expect(listed?.replyDh).toBe(replies.dhDeclaration);
    const { input, opts } = call();
    const reply = await dispatcher.dispatch('echo', input, opts);
    expect(reply).toMatchObject({ success: true, result: { id: input.id } });
    // the dispatch carried the brain's X25519 key, so the answer is MACed (ADR 0105)
    expect(reply.signature).toMatch(/^v2\.[A-Za-z0-9_-]{43}$/);
    expect(reply.worker?.id).toBe(w.instances[0]!.id);
    expect(refused).toEqual([]);
  });

  test('a worker that checks no grants (require_grant off) still signs the answer to a granted call', async () => {
    await serve();
    const { dispatcher, refused } = await checkedDispatcher();
    const { input, opts } = call();
    expect(await dispatcher.dispatch('echo', input, opts)).toMatchObject({ success: true });
    expect(refused).toEqual([]);
  });

  test('a brain that signs no grants checks no replies: the worker answers unsigned, and it counts', async () => {
    await serve();
    const dispatcher = createDispatcher({ nc });
    const { input, opts } = call();
    const reply = await dispatcher.dispatch('echo', input, opts);
    expect(reply).toMatchObject({ success: true, result: { id: input.id } });
    expect(reply).not.toHaveProperty('signature');
  });

  test("a refusal of the grant is signed too, so the brain takes the worker's grant_rejected", async () => {
    const stranger = new GrantVerifier({ trusted: [createUser().getPublicKey()] });
    await serve({ grants: stranger });
    const { dispatcher, refused } = await checkedDispatcher();
    const { input, opts } = call();
    expect(await dispatcher.dispatch('echo', input, opts)).toMatchObject({
      success: false,
      error: { code: 'grant_rejected' },
    });
    expect(refused).toEqual([]);
  });

  test('an instance started after the last sweep and not yet listed is asked on its own subject, then believed', async () => {
    // a registry that never heard the hello: only the reply names the instance
    const registry = new Registry({ nc, sweepIntervalMs: 60_000, sweepWindowMs: 300 });
    registries.push(registry);
    const w = await serve({ grants: trust() });
    const dispatcher = createDispatcher({
      nc,
      signer,
      replies: new ReplyBinding({ instances: registry }),
    });
    expect(registry.instance('echo', w.instances[0]!.id)).toBeUndefined();
    const { input, opts } = call();
    expect(await dispatcher.dispatch('echo', input, opts)).toMatchObject({ success: true });
    expect(registry.instance('echo', w.instances[0]!.id)).toMatchObject({ source: 'reply' });
  });

  test('with pinned keys, a worker signing with another key is refused; the call ends bad_reply at its deadline', async () => {
    const other = ReplySigner.ephemeral();
    await serve({ grants: trust(), replies: other });
    const pinned = { echo: [createUser().getPublicKey()] };
    const { dispatcher, refused } = await checkedDispatcher(pinned);
    const { input, opts } = call(600);
    const started = performance.now();
    const reply = await dispatcher.dispatch('echo', input, opts);
    expect(performance.now() - started).toBeGreaterThanOrEqual(590);
    expect(reply).toMatchObject({
      success: false,
      error: {
        code: 'bad_reply',
        retryable: false,
        message: expect.stringMatching(/1 refused .*not one brain\.trusted_workers lists for echo/),
      },
    });
    expect(refused.map((r) => r.kind)).toEqual(['untrusted_key']);
    // pinned to the worker's own key, the same worker is believed
    const { dispatcher: pinnedRight } = await checkedDispatcher({ echo: [other.publicKey] });
    const again = call();
    expect(await pinnedRight.dispatch('echo', again.input, again.opts)).toMatchObject({
      success: true,
    });
  });

  test('only forged replies: the call waits out its deadline and ends bad_reply naming the first', async () => {
    // the real worker takes the call and never answers; a forger answers twice, unsigned
    const silent = await nats.connect();
    silent.subscribe(dispatchSubject('mute'), {
      queue: DISPATCH_QUEUE_GROUP,
      callback: () => undefined,
    });
    const forger = await nats.connect();
    forger.subscribe(dispatchSubject('mute'), {
      callback: (_e, m: Msg) => {
        const req = DispatchRequestSchema.parse(JSON.parse(dec.decode(m.data)));
        const forged = {
          v: 1,
          success: true,
          result: req.input,
          worker: { id: 'X', host: 'h' },
          duration_ms: 1,
        };
        m.respond(enc.encode(JSON.stringify(forged)));
        m.respond(enc.encode('not json'));
      },
    });
    await Promise.all([silent.flush(), forger.flush()]);
    const { dispatcher, refused } = await checkedDispatcher();
    const { input, opts } = call(500);
    const started = performance.now();
    const reply = await dispatcher.dispatch('mute', input, opts);
    expect(performance.now() - started).toBeGreaterThanOrEqual(490);
    expect(reply).toMatchObject({
      success: false,
      error: {
        code: 'bad_reply',
        message: expect.stringMatching(/2 refused \(the first: an unsigned reply naming mute\/X\)/),
      },
    });
    expect(reply).not.toHaveProperty('worker');
    expect(refused.map((r) => r.kind)).toEqual(['unsigned', 'malformed']);
  });

  test('nobody serves the tool: no_worker at once, checked or not', async () => {
    const { dispatcher } = await checkedDispatcher();
    const started = performance.now();
    const { input, opts } = call(10_000);
    expect(await dispatcher.dispatch('nobody_home', input, opts)).toMatchObject({
      success: false,
      error: { code: 'no_worker' },
    });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  test('an instance gone between the sweep and the call: no_worker once its own PING finds nobody', async () => {
    const own = await nats.connect();
    const w = await serveTools([createEchoTool()], { nc: own, grants: trust() });
    const { registry, dispatcher } = await checkedDispatcher();
    const id = w.instances[0]!.id;
    await waitFor(() => registry.instance('echo', id), 'the registry to list echo');
    // its connection dropped: no bye, so it stays listed until sweeps miss it
    await own.close();
    // the server has dropped its subscriptions once its own PING subject has no responders
    await waitFor(
      () =>
        nc.request(srvSubject('PING', serviceName('echo'), id), undefined, { timeout: 1000 }).then(
          () => false,
          (err: unknown) => /no responders/i.test(String(err)),
        ),
      'the server to drop the closed connection',
    );
    expect(registry.instance('echo', id)).toBeDefined();
    const started = performance.now();
    const { input, opts } = call(10_000);
    expect(await dispatcher.dispatch('echo', input, opts)).toMatchObject({
      success: false,
      error: { code: 'no_worker' },
    });
    expect(performance.now() - started).toBeLessThan(3000);
  });
});
