import type { NatsConnection } from '@nats-io/nats-core';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { createDispatcher } from '../../../../src/brain/dispatch/index.js';
import { defineTool, serveTools, type ToolWorker } from '../../../../src/legion/index.js';
import { DISPATCH_QUEUE_GROUP, dispatchSubject } from '../../../../src/protocol/index.js';
import { MAX_NESTING_DEPTH } from '../../../../src/text/index.js';
import { errorOf } from '../../../helpers/dispatch.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';

// Issue 11, finding 7: the envelope a worker receives and the reply the brain receives are
// depth-checked before anything parses or recurses over them, next to their 1 MiB bound.

const enc = new TextEncoder();
/** `levels` nested arrays as JSON text. */
const arrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

/** A raw envelope whose `input.data` holds `deep` (JSON text), so the whole nests 2 + its depth. */
function envelopeText(deep: string): string {
  const deadline = Date.now() + 5000;
  return `{"v":1,"tool":"anything","input":{"data":${deep}},"decision_id":"d-1","deadline":${deadline}}`;
}

describe('nesting depth of dispatch envelopes and replies', () => {
  let nats: TestNats;
  let nc: NatsConnection;
  const workers: ToolWorker[] = [];
  const ran: unknown[] = [];

  /** A tool that takes any JSON under `data` and returns how long its JSON text is. */
  const anything = defineTool({
    name: 'anything',
    version: '1.0.0',
    description: 'Test tool: takes any JSON value.',
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    executionLocality: 'local',
    resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
    input: z.strictObject({ data: z.unknown() }),
    output: z.object({ chars: z.number() }),
    timeoutMs: 5000,
    handler: (input) => {
      ran.push(input.data);
      return { chars: JSON.stringify(input.data).length };
    },
  });

  beforeEach(async () => {
    ran.length = 0;
    nats = await startNats();
    nc = await nats.connect();
  });
  afterEach(async () => {
    await Promise.allSettled(workers.splice(0).map((w) => w.stop()));
    await nats?.stop();
  });

  async function call(text: string) {
    const msg = await nc.request(dispatchSubject('anything'), enc.encode(text), { timeout: 5000 });
    return JSON.parse(new TextDecoder().decode(msg.data)) as Parameters<typeof errorOf>[0];
  }

  test.each([
    ['one level past the bound', MAX_NESTING_DEPTH + 1],
    ['5,000 levels', 5000],
  ])(
    'a worker answers an envelope nested %s with invalid_input naming the bound',
    async (_why, depth) => {
      workers.push(await serveTools([anything], { nc: await nats.connect(), host: 'w' }));
      const text = envelopeText(arrays(depth - 2));
      const error = errorOf(await call(text));
      expect(error.code).toBe('invalid_input');
      expect(error.message).toBe(
        `invalid input for ${anything.spec.name}: dispatch envelope nests deeper than ${MAX_NESTING_DEPTH} levels at offset ` +
          `${text.indexOf('[') + MAX_NESTING_DEPTH - 2}`,
      );
      expect(ran).toEqual([]);
    },
  );

  test('a worker runs an envelope exactly at the bound', async () => {
    workers.push(await serveTools([anything], { nc: await nats.connect(), host: 'w' }));
    const reply = await call(envelopeText(arrays(MAX_NESTING_DEPTH - 2)));
    expect(reply.success).toBe(true);
    expect(ran).toHaveLength(1);
  });

  test.each([
    ['a `__proto__` key', '{"__proto__":{"polluted":true}}', 'input.data.__proto__'],
    [
      '`constructor.prototype`',
      '[{"constructor":{"prototype":{"x":1}}}]',
      'input.data[0].constructor',
    ],
  ])(
    'a worker answers an envelope with %s in its input with invalid_input',
    async (_why, deep, path) => {
      workers.push(await serveTools([anything], { nc: await nats.connect(), host: 'w' }));
      const error = errorOf(await call(envelopeText(deep)));
      expect(error.code).toBe('invalid_input');
      expect(error.message).toContain(`at ${path}, which is not allowed`);
      expect(ran).toEqual([]);
    },
  );

  test('the brain turns a reply nested past the bound into bad_reply saying so', async () => {
    const c = await nats.connect();
    const deep = arrays(5000);
    c.subscribe(dispatchSubject('anything'), {
      queue: DISPATCH_QUEUE_GROUP,
      callback: (_e, m) => {
        const reply = `{"v":1,"success":true,"result":${deep},"worker":{"id":"w1","host":"h"},"duration_ms":1}`;
        m.respond(enc.encode(reply));
      },
    });
    await c.flush();
    const dispatcher = createDispatcher({ nc });
    const reply = await dispatcher.dispatch(
      'anything',
      { data: 1 },
      { decisionId: 'd-1', deadline: Date.now() + 5000 },
    );
    const error = errorOf(reply);
    expect(error.code).toBe('bad_reply');
    expect(error.message).toMatch(
      new RegExp(
        `^the reply from anything cannot be used: it is a reply nested deeper than ${MAX_NESTING_DEPTH} levels`,
      ),
    );
  });

  test('the brain accepts a reply exactly at the bound', async () => {
    const c = await nats.connect();
    c.subscribe(dispatchSubject('anything'), {
      queue: DISPATCH_QUEUE_GROUP,
      callback: (_e, m) => {
        const result = arrays(MAX_NESTING_DEPTH - 1);
        const reply = `{"v":1,"success":true,"result":${result},"worker":{"id":"w1","host":"h"},"duration_ms":1}`;
        m.respond(enc.encode(reply));
      },
    });
    await c.flush();
    const reply = await createDispatcher({ nc }).dispatch(
      'anything',
      { data: 1 },
      { decisionId: 'd-1', deadline: Date.now() + 5000 },
    );
    expect(reply.success).toBe(true);
  });
});
