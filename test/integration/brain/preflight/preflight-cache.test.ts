import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { PreflightCache, preflightState } from '../../../../src/brain/preflight/index.js';
import { preflightSubject, type PreflightReply } from '../../../../src/protocol/index.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';

// The brain's preflight cache against a real nats-server, with a hand-driven worker on the
// preflight subject: it stays silent to the questions it is told to ignore, and answers the
// rest with a well-formed reply.

const REPLY: PreflightReply = {
  v: 1,
  tool: 'slowpoke',
  ok: false,
  warnings: [],
  checks: [{ name: 'configured', ok: false, detail: 'set CAESAR_X__URL (x.url)' }],
  execution_locality: 'local',
  resource_requirements: { cpu: 'low', memory_mb: 16, network: false },
  worker: { id: 'w1', host: 'test' },
};

let nats: TestNats;
let nc: NatsConnection;
let sub: Subscription;
/** How many questions the worker has seen, and how many more it ignores. */
const worker = { asked: 0, ignore: 0 };

beforeAll(async () => {
  nats = await startNats();
  nc = await nats.connect();
  const side = await nats.connect();
  sub = side.subscribe(preflightSubject('slowpoke'), {
    callback: (_err, msg) => {
      worker.asked++;
      if (worker.ignore > 0) {
        worker.ignore--;
        return;
      }
      msg.respond(JSON.stringify(REPLY));
    },
  });
  await side.flush();
});

afterAll(async () => {
  sub?.unsubscribe();
  await nats?.stop();
});

test('a question that went unanswered is asked again next time, not remembered as silence', async () => {
  worker.asked = 0;
  worker.ignore = 1;
  const cache = new PreflightCache(nc, { timeoutMs: 200 });
  const first = await cache.get('slowpoke');
  expect(preflightState(first)).toBe('unknown');
  const second = await cache.get('slowpoke');
  expect(preflightState(second)).toBe('not_configured');
  expect(worker.asked).toBe(2);
  // an answer is kept for the TTL: no third question
  expect(await cache.get('slowpoke')).toBe(second);
  expect(worker.asked).toBe(2);
});

test('errorTtlMs keeps the silence for as long as the operator asks', async () => {
  worker.asked = 0;
  worker.ignore = 1;
  const cache = new PreflightCache(nc, { timeoutMs: 200, errorTtlMs: 60_000 });
  const first = await cache.get('slowpoke');
  expect(preflightState(first)).toBe('unknown');
  expect(await cache.get('slowpoke')).toBe(first);
  expect(worker.asked).toBe(1);
});

test('questions in flight at the same moment are one question', async () => {
  worker.asked = 0;
  worker.ignore = 0;
  const cache = new PreflightCache(nc, { timeoutMs: 5000 });
  const all = await Promise.all([1, 2, 3, 4].map(() => cache.get('slowpoke')));
  expect(new Set(all).size).toBe(1);
  expect(worker.asked).toBe(1);
});
