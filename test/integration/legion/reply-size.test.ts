import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDispatcher, type Dispatcher } from '../../../src/brain/dispatch/index.js';
import { defineTool, serveTools, type ToolWorker } from '../../../src/legion/index.js';
import { MAX_ENVELOPE_BYTES } from '../../../src/protocol/index.js';
import { startNats, type TestNats } from '../../helpers/nats.js';

// Issue 26, finding 7: a result over the NATS server's max_payload was logged by the worker
// and never answered, so the brain waited out the whole deadline (`dispatch_timeout`); one
// over the 1 MiB envelope the brain accepts (on a server that allows more) came back as
// `bad_reply`. The worker now measures the reply it built and answers `result_too_large`
// at once. Real nats-servers with their own max_payload; the brain's own dispatch client.

/** Returns a string of the asked length: a result as large as the test wants. */
const bulkTool = defineTool({
  name: 'bulk',
  version: '1.0.0',
  description: 'Test tool: returns `bytes` characters. Example: {"bytes": 10}.',
  input: z.strictObject({ bytes: z.number().int().min(0).max(8_000_000) }),
  output: z.object({ text: z.string() }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  executionLocality: 'local',
  resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
  timeoutMs: 60_000,
  handler: (input) => ({ text: 'x'.repeat(input.bytes) }),
});

/** Long enough that an unanswered call is told apart from an answered one without timing. */
const DEADLINE_MS = 60_000;

interface Setup {
  nats: TestNats;
  worker: ToolWorker;
  dispatcher: Dispatcher;
}

async function setUp(maxPayload: string): Promise<Setup> {
  const nats = await startNats({ config: `max_payload: ${maxPayload}\n` });
  const worker = await serveTools([bulkTool], { nc: await nats.connect(), host: 'test' });
  const dispatcher = createDispatcher({ nc: await nats.connect() });
  return { nats, worker, dispatcher };
}

async function tearDown(s: Setup | undefined): Promise<void> {
  await s?.worker.stop();
  await s?.nats.stop();
}

let n = 0;
function call(s: Setup, bytes: number) {
  return s.dispatcher.dispatch(
    'bulk',
    { bytes },
    { decisionId: `d-size-${++n}`, deadline: Date.now() + DEADLINE_MS },
  );
}

describe('a reply over the NATS server max_payload', { timeout: 120_000 }, () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp('8KB');
  });
  afterAll(() => tearDown(s));

  test('is answered result_too_large at once, naming the sizes, and the worker serves on', async () => {
    const started = performance.now();
    const reply = await call(s, 20_000);
    const elapsed = performance.now() - started;
    expect(reply.success).toBe(false);
    if (reply.success) return;
    expect(reply.error).toMatchObject({ code: 'result_too_large', retryable: false });
    expect(reply.error.message).toMatch(/bulk's reply is 20\d{3} bytes/);
    expect(reply.error.message).toContain('8192');
    expect(reply.worker?.host).toBe('test');
    // answered, not waited out: far inside the deadline whatever the machine's load
    expect(elapsed).toBeLessThan(DEADLINE_MS / 2);
    expect(await call(s, 10)).toMatchObject({ success: true, result: { text: 'xxxxxxxxxx' } });
  });
});

describe('a reply over the envelope the brain accepts', { timeout: 120_000 }, () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp('4MB');
  });
  afterAll(() => tearDown(s));

  test('is answered result_too_large, not sent for the brain to refuse as bad_reply', async () => {
    const reply = await call(s, MAX_ENVELOPE_BYTES + 1000);
    expect(reply.success).toBe(false);
    if (reply.success) return;
    expect(reply.error).toMatchObject({ code: 'result_too_large', retryable: false });
    expect(reply.error.message).toContain(String(MAX_ENVELOPE_BYTES));
  });
});
