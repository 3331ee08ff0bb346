/**
 * What signed dispatch grants and signed replies cost (ADR 0052, issue 14; ADR 0060, issue
 * 26): the CPU of one signature and one verification of the calculator call's grant, and of
 * its reply (the worker signs, the brain verifies), and of the reply subject's random token;
 * and the governed HTTP path's throughput with grants and bound replies (the brain signs
 * grants and checks replies, the worker verifies grants and signs replies: the default)
 * against the same path without (no brain key, the worker with `worker.require_grant:
 * false`), two stacks side by side, alternating round by round at concurrency 32; each
 * figure is the median round.
 *
 *   npm run bench -- grants
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUser } from '@nats-io/nkeys';
import { startNatsServer } from '../src/bus/index.js';
import { ReplyBinding, readReply } from '../src/brain/dispatch/reply-check.js';
import { replyToken } from '../src/brain/dispatch/reply-mux.js';
import { newDecisionId } from '../src/brain/gateway/ids.js';
import { GrantSigner, GrantVerifier, grantNonce } from '../src/protocol/grant.js';
import { ReplyDhKey } from '../src/protocol/reply-mac.js';
import { ReplySigner } from '../src/protocol/reply-signature.js';
import { benchRounds, benchSize, opsPerSecond, percentile, type BenchContext } from './harness.js';
import { CALC_INPUT, CALC_TOOL, type LoadResult } from './load.js';
import { cpuPerCall } from './brain-probes.js';
import { LoadGenerator, startGovernedStack, stop, type GovernedStack } from './processes.js';

const CONCURRENCY = 32;
const CALLS = benchSize(6_000, 200);
const ROUNDS = benchRounds(5);
const POLICY = 'a'.repeat(64);

export async function run(ctx: BenchContext): Promise<void> {
  ctx.section(
    'Grants and bound replies: sign + verify CPU per call, and the governed path with them ' +
      `vs without (c=${CONCURRENCY}, median of ${ROUNDS} alternating rounds)`,
  );
  const { signUs, verifyUs } = cryptoCost();
  ctx.figure('grant sign (brain), CPU per call', signUs, 'us');
  ctx.figure('grant verify (worker), CPU per call', verifyUs, 'us');
  ctx.figure('grant sign + verify, CPU per call', signUs + verifyUs, 'us', { target: '<= 150 us' });
  // what a brain and a worker of ADR 0108 do: one HMAC per listed instance, one to check
  const mac = macCost();
  ctx.figure('grant MAC (brain), v2, one instance, CPU per call', mac.macUs, 'us', {
    baseline: signUs,
  });
  ctx.figure('grant check (worker), v2 HMAC, CPU per call', mac.checkUs, 'us', {
    baseline: verifyUs,
  });
  const tokenUs = 1e6 / opsPerSecond(() => void replyToken());
  ctx.figure('reply token (brain), CPU per call', tokenUs, 'us');
  const signed = replyCost('v1');
  ctx.figure('reply sign (worker), v1 Ed25519, CPU per call', signed.signUs, 'us');
  ctx.figure('reply check (brain), v1 Ed25519, CPU per call', signed.checkUs, 'us');
  // what a worker and a brain of ADR 0105 do: the dispatch carries the brain's X25519 key
  const maced = replyCost('v2');
  ctx.figure('reply MAC (worker), v2 HMAC, CPU per call', maced.signUs, 'us');
  ctx.figure('reply check (brain), v2 HMAC, CPU per call', maced.checkUs, 'us', {
    baseline: signed.checkUs,
  });
  const all = mac.macUs + mac.checkUs + tokenUs + maced.signUs + maced.checkUs;
  ctx.figure('grant + reply (both v2), bind + check, CPU per call', all, 'us', {
    baseline: signUs + verifyUs + tokenUs + maced.signUs + maced.checkUs,
  });

  const dir = await mkdtemp(join(tmpdir(), 'caesar-bench-grants-'));
  // a server each: both calculators would otherwise share one queue group
  await using server = await startNatsServer();
  await using other = await startNatsServer();
  const children: ChildProcess[] = [];
  try {
    const signed = await startGovernedStack(server.url, join(dir, 'signed'), true);
    children.push(signed.calculator, signed.brain);
    const plain = await startGovernedStack(other.url, join(dir, 'plain'), false);
    children.push(plain.calculator, plain.brain);
    const withGrants = await LoadGenerator.start(['http', signed.url, signed.token]);
    children.push(withGrants.child);
    const without = await LoadGenerator.start(['http', plain.url, plain.token]);
    children.push(without.child);
    const warmup = { concurrency: CONCURRENCY, calls: benchSize(2_000, 100) };
    await withGrants.run(warmup);
    await without.run(warmup);
    const on: LoadResult[] = [];
    const off: LoadResult[] = [];
    const cpuOn: Record<'brain' | 'calculator', number>[] = [];
    const cpuOff: Record<'brain' | 'calculator', number>[] = [];
    const cmd = { concurrency: CONCURRENCY, calls: CALLS };
    const pidsOf = (s: GovernedStack) => ({ brain: s.brain.pid!, calculator: s.calculator.pid! });
    const runOn = async () => {
      const r = await cpuPerCall(pidsOf(signed), CALLS, () => withGrants.run(cmd));
      on.push(r.result);
      cpuOn.push(r.cpu);
    };
    const runOff = async () => {
      const r = await cpuPerCall(pidsOf(plain), CALLS, () => without.run(cmd));
      off.push(r.result);
      cpuOff.push(r.cpu);
    };
    for (let round = 0; round < ROUNDS; round++) {
      // alternate which goes first, so neither always follows the other's disk flushes
      if (round % 2 === 0) {
        await runOn();
        await runOff();
      } else {
        await runOff();
        await runOn();
      }
    }
    const median = (xs: LoadResult[], k: 'rate' | 'p50') =>
      percentile(
        xs.map((x) => x[k]),
        50,
      );
    ctx.figure('governed HTTP invoke, no grants (baseline)', median(off, 'rate'), 'req/s');
    ctx.figure('governed HTTP invoke, grants + bound replies', median(on, 'rate'), 'req/s', {
      baseline: median(off, 'rate'),
      target: '>= 0.90x',
    });
    ctx.figure('governed HTTP p50 at c=32, grants', median(on, 'p50'), 'us', {
      baseline: median(off, 'p50'),
    });
    // CPU per call reads through a busy machine better than throughput does
    const cpu = (xs: Record<'brain' | 'calculator', number>[], k: 'brain' | 'calculator') =>
      percentile(
        xs.map((x) => x[k]),
        50,
      );
    for (const k of ['brain', 'calculator'] as const) {
      ctx.figure(`CPU per governed call, ${k}, no grants`, cpu(cpuOff, k), 'us');
      ctx.figure(`CPU per governed call, ${k}, grants`, cpu(cpuOn, k), 'us', {
        baseline: cpu(cpuOff, k),
      });
    }
  } finally {
    for (const child of children.reverse()) await stop(child);
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Microseconds to sign, then to verify, the calculator call's grant, each alone on this
 * thread (CPU-bound: its wall time is its CPU time).
 */
function cryptoCost(): { signUs: number; verifyUs: number } {
  const brain = createUser();
  const signer = new GrantSigner(brain.getSeed());
  const deadline = Date.now() + 3_600_000;
  const claims = () => ({
    tool: CALC_TOOL,
    input: CALC_INPUT,
    decisionId: newDecisionId(),
    deadline,
  });
  const signUs = 1e6 / opsPerSecond(() => void signer.sign({ ...claims(), policySha256: POLICY }));
  // fresh grants, each with its own decision id, more than a second of checks can use: every
  // check is the full one (a trusted key, the signature, the deadline, the replay set)
  const grants = Array.from({ length: 30_000 }, () => {
    const c = claims();
    return { c, g: signer.sign({ ...c, policySha256: POLICY }) };
  });
  const verifier = new GrantVerifier({ trusted: [brain.getPublicKey()], maxRemembered: 1 << 20 });
  let i = 0;
  let refused = 0;
  const verifyUs =
    1e6 /
    opsPerSecond(() => {
      const { c, g } = grants[i++ % grants.length]!;
      if (!verifier.check(g, c).ok) refused++;
    });
  if (refused > 0) throw new Error(`${refused} bench grants were refused`);
  return { signUs, verifyUs };
}

/**
 * Microseconds for the brain to MAC the calculator call's v2 grant for one instance, and for
 * that worker to check it (ADR 0108): the brain's X25519 signature checked once, then the
 * pair's key cached, as in a running worker.
 */
function macCost(): { macUs: number; checkUs: number } {
  const brain = createUser();
  const signer = new GrantSigner(brain.getSeed());
  const brainDh = ReplyDhKey.create();
  const brainDhSig = signer.signDh(brainDh.publicKey);
  const worker = ReplySigner.ephemeral();
  const instanceId = 'BENCHINSTANCE00000000000';
  const key = brainDh.macKey(worker.dhDeclaration.split('.')[0]!, 'brain', 'grant')!;
  const to = [{ id: instanceId, key }];
  const deadline = Date.now() + 3_600_000;
  // as for v1: fresh grants, each with its own decision id, so every check is the full one
  const calls = Array.from({ length: benchSize(100_000, 200) }, () => ({
    tool: CALC_TOOL,
    input: CALC_INPUT,
    decisionId: newDecisionId(),
    deadline,
  }));
  let i = 0;
  const macUs =
    1e6 /
    opsPerSecond(
      () => void signer.mac({ ...calls[i++ % calls.length]!, policySha256: POLICY }, to),
    );
  const grants = calls.map((c) => ({ c, g: signer.mac({ ...c, policySha256: POLICY }, to) }));
  const verifier = new GrantVerifier({ trusted: [brain.getPublicKey()], maxRemembered: 1 << 20 });
  const addressee = {
    instanceId,
    brainDh: brainDh.publicKey,
    brainDhSig,
    keyFor: (dh: string) => worker.grantKey(dh),
  };
  let refused = 0;
  let checks = 0;
  const checkUs =
    1e6 /
    opsPerSecond(() => {
      const { c, g } = grants[checks++ % grants.length]!;
      if (!verifier.check(g, c, addressee).ok) refused++;
    });
  // past the first pass the replay memory refuses them, at the same cost; none before
  if (refused > Math.max(0, checks - grants.length)) throw new Error('bench v2 grants refused');
  return { macUs, checkUs };
}

/**
 * Microseconds for the worker to bind the calculator call's reply (the digest of its outcome
 * included) and for the brain to check it (reading the envelope, the digest, the lookup of
 * the instance's keys, then the Ed25519 verification for `v1` or the HMAC for `v2`, ADR
 * 0105), each alone on this thread.
 */
function replyCost(version: 'v1' | 'v2'): { signUs: number; checkUs: number } {
  const worker = createUser();
  const signer = new ReplySigner(worker.getSeed());
  const listed = { replyKey: signer.publicKey, replyDh: signer.dhDeclaration };
  const binding = new ReplyBinding({
    instances: {
      instances: () => [],
      instance: () => listed,
      confirmInstance: () => Promise.resolve(undefined),
      anyAnswers: () => Promise.resolve(false),
    },
  });
  const brainDh = version === 'v2' ? binding.dhPublicKey : undefined;
  const grants = new GrantSigner(createUser().getSeed());
  const result = { expression: CALC_INPUT.expression, result: '391', value: 391 };
  const instanceId = 'BENCHINSTANCE00000000000';
  const calls = Array.from({ length: benchSize(2_000, 20) }, () => {
    const decisionId = newDecisionId();
    const grant = grants.sign({
      tool: CALC_TOOL,
      input: CALC_INPUT,
      decisionId,
      deadline: Date.now() + 3_600_000,
      policySha256: POLICY,
    });
    return { decisionId, nonce: grantNonce(grant)! };
  });
  let i = 0;
  const signUs =
    1e6 /
    opsPerSecond(() => {
      const { decisionId, nonce } = calls[i++ % calls.length]!;
      signer.sign({ decisionId, nonce, instanceId, outcome: { success: true, result } }, brainDh);
    });
  const envelopes = calls.map(({ decisionId, nonce }) => {
    const outcome = { success: true as const, result };
    const signature = signer.sign({ decisionId, nonce, instanceId, outcome }, brainDh);
    if (!signature.startsWith(`${version}.`))
      throw new Error(`a ${version} reply came out as ${signature.slice(0, 3)}`);
    const body = { v: 1, ...outcome, worker: { id: instanceId, host: 'h' }, duration_ms: 0.2 };
    return { decisionId, nonce, data: Buffer.from(JSON.stringify({ ...body, signature })) };
  });
  let refused = 0;
  // the brain reads every reply envelope anyway: only what binding adds to that counts
  const readUs = 1e6 / opsPerSecond(() => void readReply(envelopes[i++ % envelopes.length]!.data));
  const checkedUs =
    1e6 /
    opsPerSecond(() => {
      const { decisionId, nonce, data } = envelopes[i++ % envelopes.length]!;
      const read = readReply(data);
      if (typeof read === 'string' || binding.check(CALC_TOOL, read, decisionId, nonce) !== true) {
        refused++;
      }
    });
  if (refused > 0) throw new Error(`${refused} bench replies were refused`);
  return { signUs, checkUs: checkedUs - readUs };
}
