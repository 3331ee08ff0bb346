import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { createUser } from '@nats-io/nkeys';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createDispatcher, ReplyBinding } from '../../../../src/brain/dispatch/index.js';
import type { ReplyInstances } from '../../../../src/brain/dispatch/reply-check.js';
import { startRegistry, type Registry } from '../../../../src/brain/registry/index.js';
import { serveTools, type ToolWorker } from '../../../../src/legion/index.js';
import {
  DispatchReplySchema,
  DispatchRequestSchema,
  dispatchSubject,
  type DispatchRequest,
} from '../../../../src/protocol/index.js';
import { GrantSigner, GrantVerifier } from '../../../../src/protocol/grant.js';
import { ReplyDhKey } from '../../../../src/protocol/reply-mac.js';
import { ReplySigner } from '../../../../src/protocol/reply-signature.js';
import { createEchoTool, ExecutionLog } from '../../../fixtures/tools.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';
import { waitFor } from '../../../helpers/wait.js';

// ADR 0108 on a real bus: the brain MACs a grant for each instance its registry lists, the
// workers check their own entry, and a worker the registry has not listed yet answers
// `grant_unaddressed`, after which the same call goes again signed and runs once.

const POLICY = 'd'.repeat(64);
const dec = new TextDecoder();

describe('grants MACed per instance', () => {
  let nats: TestNats;
  let nc: NatsConnection;
  const brain = createUser();
  const signer = new GrantSigner(brain.getSeed());
  const log = new ExecutionLog();
  const workers: ToolWorker[] = [];
  const registries: Registry[] = [];
  let tap: Subscription;
  /** Every dispatch envelope sent for echo, in order. */
  const seen: DispatchRequest[] = [];
  let seq = 0;

  beforeAll(async () => {
    nats = await startNats();
    nc = await nats.connect();
    tap = nc.subscribe(dispatchSubject('echo'), {
      callback: (_err, msg) => {
        seen.push(DispatchRequestSchema.parse(JSON.parse(dec.decode(msg.data))));
      },
    });
    await nc.flush();
  });
  afterEach(async () => {
    await Promise.allSettled(workers.splice(0).map((w) => w.stop()));
    await Promise.allSettled(registries.splice(0).map((r) => r.close()));
  });
  afterAll(async () => {
    tap?.unsubscribe();
    await nats?.stop();
  });

  async function serve() {
    const replies = ReplySigner.ephemeral();
    const grants = new GrantVerifier({ trusted: [brain.getPublicKey()] });
    const w = await serveTools([createEchoTool({ onExecute: log.record })], {
      nc: await nats.connect(),
      grants,
      replies,
    });
    workers.push(w);
    return { w, replies };
  }

  async function registry(): Promise<Registry> {
    const r = await startRegistry({ nc, sweepIntervalMs: 60_000, sweepWindowMs: 300 });
    registries.push(r);
    return r;
  }

  const call = () => {
    seq += 1;
    const input = { id: `mac-${seq}`, text: `hello ${seq}` };
    const opts = {
      decisionId: `mac-dec-${seq}`,
      deadline: Date.now() + 10_000,
      policySha256: POLICY,
    };
    return { input, opts };
  };
  const sentFor = (decisionId: string) => seen.filter((e) => e.decision_id === decisionId);

  test('two listed instances: one v2 grant names both, whichever takes it runs it once', async () => {
    const one = await serve();
    const two = await serve();
    const r = await registry();
    await waitFor(() => r.instances('echo').length === 2, 'both instances listed');
    expect(r.instances('echo').every((i) => i.grantV2 === true)).toBe(true);
    const dispatcher = createDispatcher({
      nc,
      signer,
      replies: new ReplyBinding({ instances: r }),
    });
    const ids = [one.w.instances[0]!.id, two.w.instances[0]!.id].sort();
    const answered = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const { input, opts } = call();
      const reply = await dispatcher.dispatch('echo', input, opts);
      expect(reply).toMatchObject({ success: true, result: { id: input.id } });
      expect(reply.signature).toMatch(/^v2\./);
      answered.add(reply.worker!.id);
      expect(log.timesRun(input.id)).toBe(1);
      await waitFor(() => sentFor(opts.decisionId).length === 1, 'the dispatch on the tap');
      const [sent] = sentFor(opts.decisionId);
      const [version, kid, policy, list] = sent!.grant!.split('.');
      expect([version, kid, policy]).toEqual(['v2', brain.getPublicKey(), POLICY]);
      expect(
        list!
          .split(',')
          .map((e) => e.split(':')[0])
          .sort(),
      ).toEqual(ids);
      expect(sent!.reply_dh).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(sent!.reply_dh_sig).toMatch(/^[A-Za-z0-9_-]{86}$/);
    }
    expect([...answered].every((id) => ids.includes(id))).toBe(true);
  });

  test('an instance the registry does not list yet answers grant_unaddressed; the call goes again signed and runs once', async () => {
    const { w, replies } = await serve();
    const r = await registry();
    const real = w.instances[0]!.id;
    await waitFor(() => r.instance('echo', real) !== undefined, 'the instance listed');
    // the registry as it stood before this instance was listed: another one, with this
    // process's keys (so the brain can MAC for it), under an id nobody serves
    const other = { ...r.instance('echo', real)!, id: 'NOTLISTEDNOTLISTED0000' };
    const listing = [other];
    const instances: ReplyInstances = {
      instances: () => listing,
      instance: (tool: string, id: string) => r.instance(tool, id),
      confirmInstance: (tool: string, id: string) => r.confirmInstance(tool, id),
      anyAnswers: (tool: string) => r.anyAnswers(tool),
    };
    const resent: string[] = [];
    const dispatcher = createDispatcher({
      nc,
      signer,
      replies: new ReplyBinding({ instances }),
      onGrantResent: (tool) => resent.push(tool),
    });
    const { input, opts } = call();
    const reply = await dispatcher.dispatch('echo', input, opts);
    expect(reply).toMatchObject({ success: true, result: { id: input.id } });
    expect(reply.worker?.id).toBe(real);
    expect(resent).toEqual(['echo']);
    expect(log.timesRun(input.id)).toBe(1);
    await waitFor(() => sentFor(opts.decisionId).length === 2, 'both dispatches on the tap');
    const [first, second] = sentFor(opts.decisionId);
    expect(first!.grant).toMatch(/^v2\..*\.NOTLISTEDNOTLISTED0000:[A-Za-z0-9_-]{43}$/);
    expect(second!.grant).toMatch(/^v1\./);
    expect(second!.attempt).toBeUndefined();
    expect(replies.publicKey).toBe(r.instance('echo', real)!.replyKey);

    // the first envelope again, as a new decision: the worker reads its address before any
    // MAC, and answers that it is not named, running nothing
    const raw = await nc.request(
      dispatchSubject('echo'),
      JSON.stringify({ ...first!, decision_id: `${first!.decision_id}-again` }),
      { timeout: 5_000 },
    );
    expect(DispatchReplySchema.parse(JSON.parse(dec.decode(raw.data)))).toMatchObject({
      success: false,
      error: { code: 'grant_unaddressed', retryable: true },
    });
    expect(log.timesRun(input.id)).toBe(1);
  });

  test('a listed instance from before v2 grants gets signed grants', async () => {
    const { w } = await serve();
    const r = await registry();
    const id = w.instances[0]!.id;
    await waitFor(() => r.instance('echo', id) !== undefined, 'the instance listed');
    const { grantV2: _, ...older } = r.instance('echo', id)!;
    const instances: ReplyInstances = {
      instances: () => [older],
      instance: (tool, i) => r.instance(tool, i),
      confirmInstance: (tool, i) => r.confirmInstance(tool, i),
      anyAnswers: (tool) => r.anyAnswers(tool),
    };
    const dispatcher = createDispatcher({ nc, signer, replies: new ReplyBinding({ instances }) });
    const { input, opts } = call();
    expect(await dispatcher.dispatch('echo', input, opts)).toMatchObject({ success: true });
    await waitFor(() => sentFor(opts.decisionId).length === 1, 'the dispatch on the tap');
    expect(sentFor(opts.decisionId)[0]!.grant).toMatch(/^v1\./);
    expect(sentFor(opts.decisionId)[0]).not.toHaveProperty('reply_dh_sig');
  });

  test('a v2 grant with a forger-chosen X25519 key, or a forged MAC, runs nothing', async () => {
    const { w, replies } = await serve();
    const id = w.instances[0]!.id;
    const workerDh = replies.dhDeclaration.split('.')[0]!;
    const { input, opts } = call();
    const base = {
      v: 1 as const,
      tool: 'echo',
      input,
      decision_id: opts.decisionId,
      deadline: Math.floor(opts.deadline),
    };
    const claims = { tool: 'echo', input, decisionId: opts.decisionId, deadline: base.deadline };
    const send = async (req: Record<string, unknown>) => {
      const msg = await nc.request(dispatchSubject('echo'), JSON.stringify(req), {
        timeout: 5_000,
      });
      return DispatchReplySchema.parse(JSON.parse(dec.decode(msg.data)));
    };
    // the real brain's grant key cannot be had; a forger's own X25519 key, unsigned by the
    // brain, is refused before its MAC is read
    const forger = ReplyDhKey.create();
    const forgerGrant = signer.mac({ ...claims, policySha256: POLICY }, [
      { id, key: forger.macKey(workerDh, 'brain', 'grant')! },
    ]);
    const stranger = new GrantSigner(createUser().getSeed());
    for (const sig of [undefined, stranger.signDh(forger.publicKey)]) {
      const req = { ...base, grant: forgerGrant, reply_dh: forger.publicKey };
      expect(await send(sig === undefined ? req : { ...req, reply_dh_sig: sig })).toMatchObject({
        success: false,
        error: { code: 'grant_rejected', retryable: false },
      });
    }
    // the brain's own key, signed, but a MAC flipped
    const brainDh = ReplyDhKey.create();
    const good = signer.mac({ ...claims, policySha256: POLICY }, [
      { id, key: brainDh.macKey(workerDh, 'brain', 'grant')! },
    ]);
    const mac = good.split(':')[1]!;
    const flipped = good.replace(mac, `${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`);
    const dh = { reply_dh: brainDh.publicKey, reply_dh_sig: signer.signDh(brainDh.publicKey) };
    expect(await send({ ...base, grant: flipped, ...dh })).toMatchObject({
      success: false,
      error: { code: 'grant_rejected', message: expect.stringMatching(/does not match/) },
    });
    expect(log.timesRun(input.id)).toBe(0);
    // the genuine one runs, once
    expect(await send({ ...base, grant: good, ...dh })).toMatchObject({ success: true });
    expect(await send({ ...base, grant: good, ...dh })).toMatchObject({
      success: false,
      error: { code: 'grant_rejected', message: expect.stringMatching(/replayed/) },
    });
    expect(log.timesRun(input.id)).toBe(1);
  });
});
