import type { NatsConnection } from '@nats-io/nats-core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { createDispatcher } from '../../src/brain/dispatch/index.js';
import { defineTool, serveTools, type ToolWorker } from '../../src/legion/index.js';
import {
  DISPATCH_QUEUE_GROUP,
  DispatchReplySchema,
  dispatchSubject,
} from '../../src/protocol/index.js';
import { startNats, type TestNats } from '../helpers/nats.js';
import { FUZZ_TIME_MS, fuzzParameters } from './parameters.js';

/**
 * Untrusted dispatch envelopes, both ways over a real nats-server: whatever a publisher puts
 * on a dispatch subject, the worker answers with a v1 reply envelope and keeps serving; and
 * whatever a worker answers, the brain's dispatcher turns it into a reply or a typed failure
 * without throwing.
 */

const enc = new TextEncoder();
const REPLY_WAIT_MS = 10_000;

const echo = defineTool({
  name: 'fuzz_echo',
  version: '1.0.0',
  description: 'Test tool: returns the length of what it was given.',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  executionLocality: 'local',
  resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
  input: z.strictObject({ data: z.unknown(), text: z.string().max(100).optional() }),
  output: z.object({ chars: z.number() }),
  timeoutMs: 5000,
  handler: (input) => ({ chars: JSON.stringify(input.data ?? null).length }),
});

const key = fc.oneof(
  fc.constantFrom('v', 'tool', 'input', 'decision_id', 'deadline', 'grant', 'data', 'text'),
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'success', 'output', 'error'),
  fc.string({ maxLength: 6 }),
);
const leaf = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom('fuzz_echo', 'other', 1, 0, -1, 1e308, 'd-1'),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 6 }),
  ),
}));

const nested = fc.integer({ min: 1, max: 200_000 }).map((n) => '['.repeat(n) + ']'.repeat(n));

/** Envelopes near the real shape, with any field replaced or added. */
const envelope = fc
  .record({
    v: fc.oneof(fc.constant(1), value),
    tool: fc.oneof(fc.constant('fuzz_echo'), value),
    input: fc.oneof(
      fc.record({ data: value }),
      value,
      nested.map((t) => ({ raw: t })),
    ),
    decision_id: fc.oneof(fc.constant('d-fuzz'), value),
    deadline: fc.oneof(fc.constant('soon'), value),
    extra: fc.option(fc.dictionary(key, value, { maxKeys: 3 }), { nil: undefined }),
  })
  .map(({ v, tool, input, decision_id, deadline, extra }) => {
    const deadlineText =
      deadline === 'soon' ? String(Date.now() + 5000) : (JSON.stringify(deadline) ?? 'null');
    const inputText =
      typeof input === 'object' && input !== null && 'raw' in input
        ? `{"data":${(input as { raw: string }).raw}}`
        : (JSON.stringify(input) ?? 'null');
    const more = extra === undefined ? '' : `,"extra":${JSON.stringify(extra)}`;
    return `{"v":${JSON.stringify(v) ?? 'null'},"tool":${JSON.stringify(tool) ?? 'null'},"input":${inputText},"decision_id":${JSON.stringify(decision_id) ?? 'null'},"deadline":${deadlineText}${more}}`;
  });

const payload = fc.oneof(
  envelope.map((t) => enc.encode(t)),
  envelope.chain((t) => fc.nat(t.length).map((cut) => enc.encode(t.slice(0, cut)))),
  fc.uint8Array({ maxLength: 200 }),
  fc.string({ maxLength: 200 }).map((t) => enc.encode(t)),
);

describe('fuzz: dispatch envelopes', () => {
  let nats: TestNats;
  let nc: NatsConnection;
  let worker: ToolWorker;

  beforeAll(async () => {
    nats = await startNats();
    nc = await nats.connect();
    worker = await serveTools([echo], { nc: await nats.connect() });
  }, 30_000);

  afterAll(async () => {
    await worker?.stop();
    await nc?.close();
    await nats?.stop();
  }, 30_000);

  test(
    'a worker answers every payload on its dispatch subject with a v1 envelope and keeps serving',
    async () => {
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(payload, async (data) => {
          runs++;
          const reply = await nc.request(dispatchSubject('fuzz_echo'), data, {
            timeout: REPLY_WAIT_MS,
          });
          const parsed = DispatchReplySchema.safeParse(JSON.parse(reply.string()));
          expect(parsed.success).toBe(true);
        }),
        fuzzParameters({ numRuns: 1_000 }),
      );
      expect(runs).toBeGreaterThanOrEqual(50);
      const ok = await createDispatcher({ nc }).dispatch(
        'fuzz_echo',
        { data: [1, 2] },
        { decisionId: 'd-after', deadline: Date.now() + 5000 },
      );
      expect(ok).toMatchObject({ success: true, result: { chars: 5 } });
    },
    FUZZ_TIME_MS + 60_000,
  );

  test(
    'the dispatcher turns any reply into a reply envelope or a typed failure',
    async () => {
      // A stand-in worker on its own subject that answers each call with the next payload.
      let next: Uint8Array = new Uint8Array();
      const sub = nc.subscribe(dispatchSubject('fuzz_liar'), { queue: DISPATCH_QUEUE_GROUP });
      void (async () => {
        for await (const msg of sub) msg.respond(next);
      })();
      await nc.flush();
      const dispatcher = createDispatcher({ nc });
      let runs = 0;
      try {
        await fc.assert(
          fc.asyncProperty(
            fc.oneof(
              payload,
              value.map((v) => enc.encode(JSON.stringify(v) ?? 'null')),
            ),
            async (data) => {
              runs++;
              next = data;
              const reply = await dispatcher.dispatch(
                'fuzz_liar',
                { data: 1 },
                { decisionId: 'd-liar', deadline: Date.now() + REPLY_WAIT_MS },
              );
              expect(DispatchReplySchema.safeParse(reply).success).toBe(true);
              if (!reply.success) expect(typeof reply.error.code).toBe('string');
            },
          ),
          fuzzParameters({ numRuns: 1_000 }),
        );
      } finally {
        sub.unsubscribe();
      }
      expect(runs).toBeGreaterThanOrEqual(50);
    },
    FUZZ_TIME_MS + 60_000,
  );
});
