/* eslint-disable @typescript-eslint/no-explicit-any --
   HTTP bodies of many shapes are read as JSON and checked by the tests' assertions. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstToken } from '../../helpers/tokens.js';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDispatcher } from '../../../src/brain/dispatch/index.js';
import { startBrain } from '../../../src/brain/daemon/index.js';
import type { RunningBrain } from '../../../src/brain/daemon/brain.js';
import { connectBus, startNatsServer } from '../../../src/bus/index.js';
import type { NatsServer } from '../../../src/bus/launcher.js';
import { loadConfig } from '../../../src/config/index.js';
import { SHIPPED_INTENTS_FILE } from '../../../src/config/shipped.js';
import { defineTool, serveTools, type ToolWorker } from '../../../src/legion/index.js';
import { calculatorTool } from '../../../workers/calculator/index.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * Issue 11, finding 6: with its NATS server gone the brain used to write `tool.called` and
 * wait out the whole tool timeout. Now it answers `bus_unavailable` at once, writes no
 * `tool.called`, says so in `/readyz`, and recovers by itself when the server is back on the
 * same port (the NATS client reconnects).
 */

const POLICY = `version: 1
allowed_tools:
  - calculator
  - patient
`;
/** Longer than any answer this test accepts: a call that waits for it has waited too long. */
const PATIENT_TIMEOUT_MS = 30_000;
/** "At once", with room for a loaded machine; far under the tool's timeout. */
const PROMPT_MS = 5_000;

/** A tool with a long timeout, so a call that waits for the bus is plain to see. */
const patientTool = defineTool({
  name: 'patient',
  version: '1.0.0',
  description: 'Test tool: answers at once, but would be waited for 30 s.',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  executionLocality: 'local',
  resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
  input: z.strictObject({ text: z.string().max(100) }),
  output: z.object({ text: z.string() }),
  timeoutMs: PATIENT_TIMEOUT_MS,
  handler: (input) => Promise.resolve({ text: input.text }),
});

let dir: string;
let nats: TestNats;
/** The server started again on the same port; stopped at the end. */
let restarted: NatsServer | undefined;
let worker: ToolWorker;
let brain: RunningBrain;
let token: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-bus-down-'));
  await writeFile(join(dir, 'policy.yaml'), POLICY);
  nats = await startNats();
  worker = await serveTools([calculatorTool, patientTool], {
    nc: await nats.connect(),
    host: 'test',
  });
  const dataDir = join(dir, 'var');
  const config = await loadConfig({
    env: {
      CAESAR_BUS__URL: nats.url,
      CAESAR_BUS__RECONNECT_WAIT: '100ms',
      CAESAR_BUS__RECONNECT_JITTER: '50ms',
      CAESAR_DATA_DIR: dataDir,
      CAESAR_POLICY__FILE: join(dir, 'policy.yaml'),
      // the brain's own intent rules: in-process, nothing copies them to the data dir
      CAESAR_BRAIN__INTENTS_FILE: SHIPPED_INTENTS_FILE,
      CAESAR_API__PORT: '0',
      CAESAR_BRAIN__CALL_TIMEOUT: '30s',
      CAESAR_LOG__LEVEL: 'silent',
    },
    cwd: dir,
  });
  brain = await startBrain(config, { sweepIntervalMs: 500 });
  token = await firstToken(join(dataDir, 'api-tokens.yaml'));
  await waitFor(
    async () => (await call('GET', '/v1/tools')).body.length === 2,
    'the brain to discover both tools',
    15_000,
    50,
  );
}, 60_000);

afterAll(async () => {
  await brain?.close();
  await worker?.stop();
  await restarted?.stop();
  await nats?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${brain.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    // a brain that waits out the tool's timeout fails here, not after 30 s
    signal: AbortSignal.timeout(PATIENT_TIMEOUT_MS / 2),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('the brain while its NATS server is down', () => {
  test('answers bus_unavailable at once without a tool.called row, /readyz says so, and both recover on the same port', async () => {
    expect(
      (await call('POST', '/v1/tools/patient/invoke', { input: { text: 'up' } })).body,
    ).toMatchObject({ outcome: 'ok', result: { text: 'up' } });

    const port = nats.server.port;
    await nats.server.stop(); // the server only: the worker's client stays, and reconnects
    const down = await waitFor(
      async () => {
        const r = await call('GET', '/readyz');
        const ready = r.body as { checks: { nats: { ok: boolean; detail?: string } } };
        return r.status === 503 && !ready.checks.nats.ok ? ready : undefined;
      },
      '/readyz to report the bus down',
      10_000,
      50,
    );
    expect(down.checks.nats.detail).toMatch(/disconnected/);

    const started = Date.now();
    const res = await call('POST', '/v1/tools/patient/invoke', { input: { text: 'down' } });
    expect(Date.now() - started).toBeLessThan(PROMPT_MS);
    expect(res.status).toBe(200); // a tool-call failure is a report, like every other
    expect(res.body).toMatchObject({
      outcome: 'failed',
      error: { code: 'bus_unavailable', retryable: true },
    });
    expect(res.body.error.message).toMatch(/NATS/);
    const rows = await call('GET', `/v1/audit?decision_id=${res.body.decision_id}`);
    // the decision is recorded, but nothing claims a call that was never sent
    const types = (rows.body as { event_type: string }[]).map((r) => r.event_type);
    expect(types).toEqual(['tool.failed']);
    expect(rows.body[0].payload.error.code).toBe('bus_unavailable');

    // a chat turn that needs a tool says plainly why it could not
    const chatStarted = Date.now();
    const chat = await call('POST', '/v1/chat', { message: 'what is 17 * 23' });
    expect(Date.now() - chatStarted).toBeLessThan(PROMPT_MS);
    expect(chat.body.tool_calls[0]).toMatchObject({
      tool: 'calculator',
      error: { code: 'bus_unavailable' },
    });
    expect(chat.body.reply).toMatch(/message bus \(NATS\) is down/);

    restarted = await startNatsServer({ port });
    await waitFor(
      async () => (await call('GET', '/readyz')).status === 200,
      '/readyz to recover after the reconnect',
      15_000,
      50,
    );
    const back = await waitFor(
      async () => {
        const r = await call('POST', '/v1/tools/calculator/invoke', {
          input: { expression: '6 * 7' },
        });
        const report = r.body as { outcome: string; result?: unknown };
        return report.outcome === 'ok' ? report : undefined;
      },
      'a call to work again once the worker has reconnected too',
      15_000,
      150,
    );
    expect(back.result).toMatchObject({ value: 42 });
  }, 90_000);

  test('the dispatcher itself refuses to send while disconnected, instead of buffering the call', async () => {
    const server = await startNatsServer();
    const nc = await connectBus({ servers: server.url, reconnectTimeWaitMs: 100 });
    try {
      const dispatcher = createDispatcher({ nc });
      expect(dispatcher.bus()).toEqual({ ok: true });
      await server.stop();
      await waitFor(() => !dispatcher.bus().ok, 'the dispatcher to see the disconnect');
      const started = Date.now();
      const reply = await dispatcher.dispatch(
        'patient',
        { text: 'x' },
        { decisionId: 'd-1', deadline: Date.now() + PATIENT_TIMEOUT_MS },
      );
      expect(Date.now() - started).toBeLessThan(PROMPT_MS);
      expect(reply).toMatchObject({
        success: false,
        error: { code: 'bus_unavailable', retryable: true },
      });
    } finally {
      await nc.close();
      await server.stop();
    }
  }, 30_000);
});
