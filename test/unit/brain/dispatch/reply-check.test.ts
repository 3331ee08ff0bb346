import { createUser } from '@nats-io/nkeys';
import { describe, expect, test } from 'vitest';
import {
  ReplyBinding,
  readReply,
  type DeclaredReplyKeys,
  type ReplyInstances,
} from '../../../../src/brain/dispatch/reply-check.js';
import { GrantSigner, grantNonce } from '../../../../src/protocol/grant.js';
import { ReplySigner, type SignedOutcome } from '../../../../src/protocol/reply-signature.js';

// ADR 0060, the brain's check of one reply against the instances the registry lists.

const a = new ReplySigner(createUser().getSeed());
const b = new ReplySigner(createUser().getSeed());
const decisionId = 'dec-1';
const nonce = grantNonce(
  new GrantSigner(createUser().getSeed()).sign({
    tool: 'echo',
    input: {},
    decisionId,
    deadline: 1,
    policySha256: 'c'.repeat(64),
  }),
)!;

/** The registry as the binding sees it: listed instances, and those a question would confirm. */
function instances(
  listed: Record<string, string | undefined>,
  confirmable: Record<string, string> = {},
): ReplyInstances & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    instances: () => [],
    instance: (tool, id) =>
      tool === 'echo' && id in listed ? { replyKey: listed[id] } : undefined,
    confirmInstance: (_tool, id) => {
      asked.push(id);
      return Promise.resolve(id in confirmable ? { replyKey: confirmable[id] } : undefined);
    },
    anyAnswers: () => Promise.resolve(false),
  };
}

/** A reply envelope as it would arrive, signed by `by` (or not at all) as instance `id`. */
function reply(
  id: string,
  by: ReplySigner | undefined,
  outcome: SignedOutcome,
  forDecision = decisionId,
) {
  const signature = by?.sign({ decisionId: forDecision, nonce, instanceId: id, outcome });
  const body = {
    v: 1,
    ...outcome,
    worker: { id, host: 'h' },
    duration_ms: 1,
    ...(signature ? { signature } : {}),
  };
  const read = readReply(new TextEncoder().encode(JSON.stringify(body)));
  if (typeof read === 'string') throw new Error(read);
  return read;
}

const ok: SignedOutcome = { success: true, result: { text: 'hi', n: [1, 2] } };

describe('ReplyBinding', () => {
  test('a reply signed by the key of the listed instance it names, for this call, is bound', () => {
    const binding = new ReplyBinding({ instances: instances({ A: a.publicKey }) });
    expect(binding.check('echo', reply('A', a, ok), decisionId, nonce)).toBe(true);
  });

  test("verification against the wrong instance's key fails: A's signature naming B is refused", () => {
    const binding = new ReplyBinding({ instances: instances({ A: a.publicKey, B: b.publicKey }) });
    expect(binding.check('echo', reply('B', a, ok), decisionId, nonce)).toMatchObject({
      kind: 'bad_signature',
      instance: 'B',
    });
  });

  test('signed for another call, it is refused', () => {
    const binding = new ReplyBinding({ instances: instances({ A: a.publicKey }) });
    expect(binding.check('echo', reply('A', a, ok, 'dec-0'), decisionId, nonce)).toMatchObject({
      kind: 'bad_signature',
    });
  });

  test.each([
    ['unsigned', reply('A', undefined, ok), { A: a.publicKey }],
    ['no_key', reply('A', a, ok), { A: undefined }],
    ['untrusted_key', reply('A', a, ok), { A: a.publicKey }, { echo: [b.publicKey] }],
  ] as const)('%s', (kind, read, listed, trusted?: Readonly<Record<string, readonly string[]>>) => {
    const binding = new ReplyBinding({
      instances: instances(listed),
      ...(trusted ? { trusted } : {}),
    });
    expect(binding.check('echo', read, decisionId, nonce)).toMatchObject({ kind });
  });

  test('an unlisted instance is asked on its own subject: bound once it confirms with its key', async () => {
    const reg = instances({}, { C: a.publicKey });
    const binding = new ReplyBinding({ instances: reg });
    await expect(binding.check('echo', reply('C', a, ok), decisionId, nonce)).resolves.toBe(true);
    await expect(
      binding.check('echo', reply('D', a, ok), decisionId, nonce),
    ).resolves.toMatchObject({
      kind: 'unknown_instance',
      instance: 'D',
    });
    expect(reg.asked).toEqual(['C', 'D']);
  });

  test('a failure is bound by its error, as the worker sent it', () => {
    const failed: SignedOutcome = {
      success: false,
      error: { code: 'timeout', message: 'deadline of 50 ms passed', retryable: true },
    };
    const binding = new ReplyBinding({ instances: instances({ A: a.publicKey }) });
    expect(binding.check('echo', reply('A', a, failed), decisionId, nonce)).toBe(true);
  });
});

describe('ReplyBinding, MACed replies (ADR 0105)', () => {
  /** A reply `by` MACs for the brain whose X25519 key is `brainDh`, as instance `id`. */
  function macReply(id: string, by: ReplySigner, brainDh: string, outcome = ok) {
    const signature = by.sign({ decisionId, nonce, instanceId: id, outcome }, brainDh);
    expect(signature).toMatch(/^v2\./);
    const body = { v: 1, ...outcome, worker: { id, host: 'h' }, duration_ms: 1, signature };
    const read = readReply(new TextEncoder().encode(JSON.stringify(body)));
    if (typeof read === 'string') throw new Error(read);
    return read;
  }

  function bindingOf(
    listed: Record<string, DeclaredReplyKeys>,
    trusted?: Record<string, string[]>,
  ) {
    return new ReplyBinding({
      instances: {
        instances: (tool) =>
          tool === 'echo' ? Object.entries(listed).map(([id, keys]) => ({ id, ...keys })) : [],
        instance: (tool, id) => (tool === 'echo' ? listed[id] : undefined),
        confirmInstance: () => Promise.resolve(undefined),
        anyAnswers: () => Promise.resolve(false),
      },
      ...(trusted ? { trusted } : {}),
    });
  }

  test('a reply MACed with the key of the X25519 key its instance declared, for this call, is bound', () => {
    const binding = bindingOf({ A: { replyKey: a.publicKey, replyDh: a.dhDeclaration } });
    expect(binding.dhPublicKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(binding.check('echo', macReply('A', a, binding.dhPublicKey), decisionId, nonce)).toBe(
      true,
    );
    // and again from the cached key
    expect(binding.check('echo', macReply('A', a, binding.dhPublicKey), decisionId, nonce)).toBe(
      true,
    );
  });

  test('MACed for another brain, or naming another instance, it is refused', () => {
    const binding = bindingOf({
      A: { replyKey: a.publicKey, replyDh: a.dhDeclaration },
      B: { replyKey: b.publicKey, replyDh: b.dhDeclaration },
    });
    const other = bindingOf({});
    expect(
      binding.check('echo', macReply('A', a, other.dhPublicKey), decisionId, nonce),
    ).toMatchObject({ kind: 'bad_signature', instance: 'A' });
    expect(
      binding.check('echo', macReply('B', a, binding.dhPublicKey), decisionId, nonce),
    ).toMatchObject({ kind: 'bad_signature', instance: 'B' });
  });

  test('an instance that declared no X25519 key, or one its reply key did not sign, has no MAC key', () => {
    const none = bindingOf({ A: { replyKey: a.publicKey } });
    expect(none.check('echo', macReply('A', a, none.dhPublicKey), decisionId, nonce)).toMatchObject(
      { kind: 'no_key', instance: 'A' },
    );
    // b's declaration under a's reply key: a's key did not sign it
    const swapped = bindingOf({ A: { replyKey: a.publicKey, replyDh: b.dhDeclaration } });
    expect(
      swapped.check('echo', macReply('A', a, swapped.dhPublicKey), decisionId, nonce),
    ).toMatchObject({ kind: 'no_key' });
  });

  test('the pins hold for MACed replies too: an unpinned reply key is refused before any MAC', () => {
    const binding = bindingOf(
      { A: { replyKey: a.publicKey, replyDh: a.dhDeclaration } },
      { echo: [b.publicKey] },
    );
    expect(
      binding.check('echo', macReply('A', a, binding.dhPublicKey), decisionId, nonce),
    ).toMatchObject({ kind: 'untrusted_key' });
  });

  test('a v2 grant is MACed for every listed instance, each with the key it can derive, only when all take it (ADR 0108)', () => {
    const v2 = (w: ReplySigner) => ({
      replyKey: w.publicKey,
      replyDh: w.dhDeclaration,
      grantV2: true,
    });
    const both = bindingOf({ A: v2(a), B: v2(b) });
    const to = both.grantInstances('echo')!;
    expect(to.map((i) => i.id)).toEqual(['A', 'B']);
    // each key is what that worker derives from the brain's X25519 key
    expect(to[0]!.key.equals(a.grantKey(both.dhPublicKey)!)).toBe(true);
    expect(to[1]!.key.equals(b.grantKey(both.dhPublicKey)!)).toBe(true);
    expect(both.grantInstances('other')).toBeUndefined();
    // one listed instance from before v2 grants, without a signed X25519 key, or unpinned: v1
    const old = { replyKey: b.publicKey, replyDh: b.dhDeclaration };
    expect(bindingOf({ A: v2(a), B: old }).grantInstances('echo')).toBeUndefined();
    expect(
      bindingOf({ A: v2(a), B: { ...v2(b), replyDh: a.dhDeclaration } }).grantInstances('echo'),
    ).toBeUndefined();
    expect(
      bindingOf({ A: v2(a), B: v2(b) }, { echo: [a.publicKey] }).grantInstances('echo'),
    ).toBeUndefined();
    expect(
      bindingOf({ A: v2(a), B: v2(b) }, { echo: [a.publicKey, b.publicKey] }).grantInstances(
        'echo',
      ),
    ).toHaveLength(2);
    // more than a grant names
    const nine = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`I${i}`, v2(a)]));
    expect(bindingOf(nine).grantInstances('echo')).toBeUndefined();
  });

  test("the grant's instances are worked out once per registry listing", () => {
    let listing = [{ id: 'A', replyKey: a.publicKey, replyDh: a.dhDeclaration, grantV2: true }];
    const binding = new ReplyBinding({
      instances: {
        instances: () => listing,
        instance: () => undefined,
        confirmInstance: () => Promise.resolve(undefined),
        anyAnswers: () => Promise.resolve(false),
      },
    });
    const first = binding.grantInstances('echo');
    expect(first).toHaveLength(1);
    expect(binding.grantInstances('echo')).toBe(first);
    listing = [
      ...listing,
      { id: 'B', replyKey: b.publicKey, replyDh: b.dhDeclaration, grantV2: true },
    ];
    expect(binding.grantInstances('echo')?.map((i) => i.id)).toEqual(['A', 'B']);
  });

  test('a worker of a version before MACs signs (v1) though the instance declared nothing new: still bound', () => {
    const binding = bindingOf({ A: { replyKey: a.publicKey } });
    expect(binding.check('echo', reply('A', a, ok), decisionId, nonce)).toBe(true);
  });
});

describe('readReply', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const envelope = (result: string) =>
    `{"v":1,"success":true,"result":${result},"worker":{"id":"A","host":"h"},"duration_ms":1}`;

  test('a reply whose result holds a `__proto__` key is refused, as the worker refuses a request with one', () => {
    // before issue 30's one JSON ladder, the brain's reader skipped the prototype step
    expect(readReply(bytes(envelope('{"x":{"__proto__":{"admin":true}}}')))).toBe(
      "a reply with a `__proto__` key (it could reach an object's prototype)",
    );
    expect(readReply(bytes(envelope('{"constructor":{"prototype":{}}}')))).toMatch(/`constructor`/);
  });

  test('each rung of the ladder says why', () => {
    expect(readReply(bytes('{'))).toBe('a reply that is not JSON');
    expect(readReply(bytes('['.repeat(100) + ']'.repeat(100)))).toMatch(/^a reply nested deeper/);
    expect(readReply(bytes(envelope('{"constructor":"fine"}')))).toMatchObject({
      reply: { success: true },
    });
  });
});
