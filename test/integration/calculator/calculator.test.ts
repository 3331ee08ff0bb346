import type { NatsConnection } from '@nats-io/nats-core';
import { createUser } from '@nats-io/nkeys';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GrantSigner } from '../../../src/protocol/grant.js';
import {
  SrvStatsSchema,
  serviceName,
  srvSubject,
  type DispatchReply,
} from '../../../src/protocol/index.js';
import { startCli, type RunningCli } from '../../helpers/cli.js';
import { rawDispatch } from '../../helpers/dispatch.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { HOSTILE_CASES } from '../../unit/calculator/cases.js';

const dec = new TextDecoder();

let nats: TestNats;
let nc: NatsConnection;
const workers: RunningCli[] = [];

/**
 * The deadlines below are for calculations, not for a cold thread start (a second idle, many on
 * a loaded machine; ADR 0048): the workers keep two threads warm, and replace a thread a
 * hostile input killed at once.
 */
const WARM = { CAESAR_TOOLS__CALCULATOR__WARM_THREADS: '2' };
/** The brain these calls stand in for: both workers trust its grants, one by flag, one by env. */
const brain = createUser();
const signer = new GrantSigner(brain.getSeed());

/**
 * Two real calculator processes, as an operator would run them on two hosts: one
 * configured by flags, the other by CAESAR_* environment variables only.
 */
beforeAll(async () => {
  nats = await startNats();
  nc = await nats.connect();
  workers.push(
    startCli(
      [
        'legion',
        'serve-tool',
        'calculator',
        '--nats-url',
        nats.url,
        '--host',
        'host-a',
        '--trusted-brain',
        brain.getPublicKey(),
        '--log-level',
        'warn',
      ],
      WARM,
    ),
    startCli(['legion', 'serve-tool', 'calculator'], {
      CAESAR_BUS__URL: nats.url,
      CAESAR_WORKER__HOST: 'host-b',
      CAESAR_WORKER__TRUSTED_BRAINS: brain.getPublicKey(),
      CAESAR_LOG__LEVEL: 'warn',
      ...WARM,
    }),
  );
  await waitForInstances(2);
}, 90_000);

afterAll(async () => {
  for (const w of workers) w.child.kill('SIGTERM');
  await Promise.all(workers.map((w) => w.exited));
  await nats?.stop();
});

async function waitForInstances(n: number): Promise<void> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if ((await statsPerInstance()).length >= n) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `calculator instances did not come up: ${workers.map((w) => w.stderr()).join('\n')}`,
  );
}

async function statsPerInstance() {
  const out: { id: string; requests: number }[] = [];
  try {
    const replies = await nc.requestMany(
      srvSubject('STATS', serviceName('calculator')),
      undefined,
      {
        maxWait: 300,
        strategy: 'timer',
      },
    );
    for await (const m of replies) {
      const s = SrvStatsSchema.parse(JSON.parse(dec.decode(m.data)));
      out.push({
        id: s.id,
        requests: s.endpoints.find((e) => e.name === 'dispatch')!.num_requests,
      });
    }
  } catch (err) {
    if (!/no responders/i.test(String(err))) throw err; // none up yet
  }
  return out;
}

async function calc(expression: string, deadlineMs = 5000): Promise<DispatchReply> {
  return (await rawDispatch(nc, 'calculator', { expression }, { deadlineMs, signer })).reply;
}

describe('calculator over NATS', () => {
  test('answers 17 * 23 with a formatted result', async () => {
    expect(await calc('17 * 23')).toMatchObject({
      success: true,
      result: { expression: '17 * 23', result: '391', value: 391 },
    });
  });

  test('two instances share the calls and each call runs exactly once', async () => {
    const before = await statsPerInstance();
    // 32 calls in flight at a time: within the two instances' concurrency + queue bounds.
    const replies: DispatchReply[] = [];
    for (let i = 0; i < 200; i += 32) {
      const batch = Array.from({ length: Math.min(32, 200 - i) }, (_, j) => calc(`${i + j} + 1`));
      replies.push(...(await Promise.all(batch)));
    }
    const byWorker = new Map<string, number>();
    replies.forEach((r, i) => {
      expect(r).toMatchObject({ success: true, result: { value: i + 1 } });
      byWorker.set(r.worker!.id, (byWorker.get(r.worker!.id) ?? 0) + 1);
    });
    expect(byWorker.size).toBe(2);
    expect(new Set(replies.map((r) => r.worker!.host))).toEqual(new Set(['host-a', 'host-b']));
    // The instances' own counters agree: 200 executions in all, none twice.
    const after = await statsPerInstance();
    const executed = after.reduce(
      (n, s) => n + s.requests - (before.find((b) => b.id === s.id)?.requests ?? 0),
      0,
    );
    expect(executed).toBe(200);
    for (const [id, n] of byWorker) {
      const delta =
        after.find((s) => s.id === id)!.requests - (before.find((b) => b.id === id)?.requests ?? 0);
      expect(delta).toBe(n);
    }
  });

  test.each(HOSTILE_CASES.map((c) => [c.label, c.expression] as const))(
    'hostile %s is refused within the deadline and the next call is served',
    async (_label, expression) => {
      const reply = await calc(expression, 3000);
      expect(reply.success).toBe(false);
      if (!reply.success) expect(['invalid_input', 'timeout']).toContain(reply.error.code);
      expect(await calc('1 + 1')).toMatchObject({ success: true, result: { value: 2 } });
    },
  );
});
