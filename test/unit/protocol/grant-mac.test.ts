import { createUser } from '@nats-io/nkeys';
import { describe, expect, test } from 'vitest';
import {
  GrantSigner,
  GrantVerifier,
  MAX_GRANT_INSTANCES,
  type GrantAddressee,
  type GrantInstance,
} from '../../../src/protocol/grant.js';
import { ReplyDhKey } from '../../../src/protocol/reply-mac.js';
import { ReplySigner } from '../../../src/protocol/reply-signature.js';

// ADR 0108: a v2 grant is MACed once per instance the brain lists, with the key it agreed
// with that worker process; the worker believes the brain's X25519 key only under the
// brain's NKEY signature, finds its own entry, and checks one HMAC.

const POLICY = 'a'.repeat(64);
const brainKeys = createUser();
const brain = new GrantSigner(brainKeys.getSeed());
const brainDh = ReplyDhKey.create();
const brainDhSig = brain.signDh(brainDh.publicKey);

/** A worker process: its reply signer (which holds its X25519 key) and one instance id. */
function workerProcess(id: string, replies = ReplySigner.ephemeral()) {
  const dh = replies.dhDeclaration.split('.')[0]!;
  const key = brainDh.macKey(dh, 'brain', 'grant')!;
  const addressee = (over: Partial<GrantAddressee> = {}): GrantAddressee => ({
    instanceId: id,
    brainDh: brainDh.publicKey,
    brainDhSig,
    keyFor: (k) => replies.grantKey(k),
    ...over,
  });
  return { id, replies, instance: { id, key } satisfies GrantInstance, addressee };
}

const a = workerProcess('AAAAAAAAAAAAAAAAAAAAAA');
// an instance id a worker picked itself may hold `_` and `-` (INSTANCE_ID_PATTERN)
const b = workerProcess('worker_b-1');

let seq = 0;
function claims(over: Record<string, unknown> = {}) {
  seq += 1;
  return {
    tool: 'echo',
    input: { text: `hello ${seq}`, n: [1, 2] },
    decisionId: `dec-${seq}`,
    deadline: Date.now() + 60_000,
    ...over,
  };
}
const verifier = () => new GrantVerifier({ trusted: [brainKeys.getPublicKey()] });

describe('v2 grants (ADR 0108)', () => {
  test('each instance named checks its own MAC; the form is v2.<brain>.<policy>.<id>:<mac>,…', () => {
    const c = claims();
    const grant = brain.mac({ ...c, policySha256: POLICY }, [a.instance, b.instance]);
    expect(grant).toMatch(
      new RegExp(
        `^v2\\.${brainKeys.getPublicKey()}\\.${POLICY}\\.${a.id}:[A-Za-z0-9_-]{43},${b.id}:[A-Za-z0-9_-]{43}$`,
      ),
    );
    expect(verifier().check(grant, c, a.addressee())).toEqual({
      ok: true,
      brain: brainKeys.getPublicKey(),
      policySha256: POLICY,
    });
    expect(verifier().check(grant, c, b.addressee())).toMatchObject({ ok: true });
  });

  test('an instance the grant does not name is told so, apart from a refusal, and nothing is remembered', () => {
    const c = claims();
    const grant = brain.mac({ ...c, policySha256: POLICY }, [a.instance]);
    const v = verifier();
    expect(v.check(grant, c, b.addressee())).toEqual({
      ok: false,
      unaddressed: true,
      reason: `the grant names no MAC for this instance (${b.id})`,
    });
    expect(v.remembered).toBe(0);
    // the same call, signed, then runs there
    expect(v.check(brain.sign({ ...c, policySha256: POLICY }), c, b.addressee())).toMatchObject({
      ok: true,
    });
  });

  test('another instance entry, tool, input, decision, deadline or policy does not pass', () => {
    const c = claims();
    const grant = brain.mac({ ...c, policySha256: POLICY }, [a.instance, b.instance]);
    const refusedFor = (over: Record<string, unknown>) =>
      verifier().check(grant, { ...c, ...over }, a.addressee());
    for (const over of [
      { tool: 'echo2' },
      { input: { text: 'other', n: [1, 2] } },
      { decisionId: 'dec-other' },
      { deadline: c.deadline + 1 },
    ]) {
      expect(refusedFor(over)).toMatchObject({ ok: false, reason: /does not match/ });
    }
    // the policy digest is in the grant itself
    const [v, kid, , list] = grant.split('.');
    const otherPolicy = [v, kid, 'b'.repeat(64), list].join('.');
    expect(verifier().check(otherPolicy, c, a.addressee())).toMatchObject({
      ok: false,
      reason: /does not match/,
    });
    // a's MAC under the id of another instance of a's own process (one key for both): each
    // MAC binds its instance, not only its key
    const sibling = workerProcess('CCCCCCCCCCCCCCCCCCCCCC', a.replies);
    expect(sibling.instance.key.equals(a.instance.key)).toBe(true);
    const aMac = grant.split('.')[3]!.split(',')[0]!.split(':')[1];
    const swapped = [v, kid, POLICY, `${sibling.id}:${aMac}`].join('.');
    expect(verifier().check(swapped, c, sibling.addressee())).toMatchObject({
      ok: false,
      reason: /does not match/,
    });
  });

  test("the brain's X25519 key counts only under its NKEY signature", () => {
    const c = claims();
    const grant = brain.mac({ ...c, policySha256: POLICY }, [a.instance]);
    const stranger = new GrantSigner(createUser().getSeed());
    for (const over of [
      { brainDhSig: stranger.signDh(brainDh.publicKey) },
      { brainDhSig: brain.signDh(ReplyDhKey.create().publicKey) },
    ]) {
      expect(verifier().check(grant, c, a.addressee(over))).toMatchObject({
        ok: false,
        reason: /is not one U[A-Z2-7]{55} signed/,
      });
    }
    for (const over of [{ brainDhSig: undefined }, { brainDh: undefined }]) {
      expect(verifier().check(grant, c, a.addressee(over))).toMatchObject({
        ok: false,
        reason: /needs the brain's X25519 key/,
      });
    }
    // a key of the forger's own, signed by no trusted brain, is refused before any MAC
    const forger = ReplyDhKey.create();
    const forged = brain.mac({ ...c, policySha256: POLICY }, [
      { id: a.id, key: forger.macKey(a.replies.dhDeclaration.split('.')[0]!, 'brain', 'grant')! },
    ]);
    expect(verifier().check(forged, c, a.addressee({ brainDh: forger.publicKey }))).toMatchObject({
      ok: false,
      reason: /is not one U[A-Z2-7]{55} signed/,
    });
  });

  test('a MAC from a key agreed for replies is not a grant MAC', () => {
    const c = claims();
    const dh = a.replies.dhDeclaration.split('.')[0]!;
    const replyKey = brainDh.macKey(dh, 'brain', 'reply')!;
    expect(replyKey.equals(a.instance.key)).toBe(false);
    const grant = brain.mac({ ...c, policySha256: POLICY }, [{ id: a.id, key: replyKey }]);
    expect(verifier().check(grant, c, a.addressee())).toMatchObject({
      ok: false,
      reason: /does not match/,
    });
  });

  test('a replayed or expired v2 grant is refused like a v1 one', () => {
    const c = claims();
    const grant = brain.mac({ ...c, policySha256: POLICY }, [a.instance]);
    const v = verifier();
    expect(v.check(grant, c, a.addressee())).toMatchObject({ ok: true });
    expect(v.check(grant, c, a.addressee())).toMatchObject({ ok: false, reason: /replayed/ });
    const late = claims({ deadline: Date.now() - 1 });
    const old = brain.mac({ ...late, policySha256: POLICY }, [a.instance]);
    expect(v.check(old, late, a.addressee())).toMatchObject({ ok: false, reason: /expired/ });
  });

  test('malformed lists, too many entries and a path without an addressee are refused', () => {
    const c = claims();
    const grant = brain.mac({ ...c, policySha256: POLICY }, [a.instance]);
    const head = grant.split('.').slice(0, 3).join('.');
    for (const list of [
      '',
      `${a.id}`,
      `${a.id}:short`,
      `${a.id}:${'A'.repeat(43)},`,
      `bad id!:${'A'.repeat(43)}`,
    ]) {
      expect(verifier().check(`${head}.${list}`, c, a.addressee())).toMatchObject({
        ok: false,
        reason: 'the grant is malformed',
      });
    }
    const many = Array.from(
      { length: MAX_GRANT_INSTANCES + 1 },
      (_, i) => `I${i}:${'A'.repeat(43)}`,
    );
    expect(verifier().check(`${head}.${many.join(',')}`, c, a.addressee())).toMatchObject({
      ok: false,
      reason: 'the grant is malformed',
    });
    // the job path checks v1 grants only
    expect(verifier().check(grant, c)).toMatchObject({ ok: false, reason: /v1 grants only/ });
    expect(() => brain.mac({ ...c, policySha256: POLICY }, [])).toThrow(/1 to 8 instances/);
    const nine = Array.from({ length: MAX_GRANT_INSTANCES + 1 }, () => a.instance);
    expect(() => brain.mac({ ...c, policySha256: POLICY }, nine)).toThrow(/not 9/);
  });
});
