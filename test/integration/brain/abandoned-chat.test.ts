import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  callBrain,
  pollBrain,
  startBrainProcess,
  stopProcess,
  type BrainProcess,
} from '../../helpers/brain.js';
import { bodyOf, reply, startFakeOpenAi, type FakeLlm } from '../../helpers/fake-llm.js';
import { leavingClient, type RequestSpec } from '../../helpers/http-clients.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * A non-streamed chat or completion whose client leaves is aborted: the model request gets
 * the abort at once, nothing is retried for nobody, and the turn ends recorded as cancelled.
 * A live brain process, a real nats-server and a loopback model that holds its answer.
 */

let nats: TestNats;
let dir: string;
let model: FakeLlm;
let brain: BrainProcess;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-abandoned-'));
  const policyFile = join(dir, 'policy.yaml');
  await writeFile(policyFile, 'version: 1\nallowed_tools: []\n');
  nats = await startNats();
  model = await startFakeOpenAi();
  brain = await startBrainProcess({
    natsUrl: nats.url,
    dataDir: join(dir, 'var'),
    policyFile,
    env: {
      CAESAR_LLM__PROVIDER: 'openai',
      CAESAR_LLM__MODEL: 'gpt-test',
      CAESAR_LLM__OPENAI__BASE_URL: `${model.url}/v1`,
      CAESAR_LLM__OPENAI__API_KEY: 'sk-test-0123456789',
      // the defaults: a request the client left would time out after a minute and be retried
      CAESAR_LLM__TIMEOUT: '60s',
      CAESAR_LLM__RETRIES: '2',
    },
  });
}, 60_000);

afterAll(async () => {
  await stopProcess(brain?.proc);
  await model?.close();
  await nats?.stop();
  await rm(dir, { recursive: true, force: true });
});

interface ChatRow {
  readonly outcome: string;
  readonly session_id: string;
  readonly payload: { readonly message: string; readonly cancelled?: boolean };
}

/** The `chat.completed` row of the turn that was asked `message`, once it is written. */
function turnRow(message: string): Promise<ChatRow> {
  return pollBrain(async () => {
    const rows = (await callBrain(brain, 'GET', '/v1/audit?type=chat.completed')).body as ChatRow[];
    return rows.find((r) => r.payload.message === message);
  }, `the turn "${message}" to end`);
}

/** Sends `spec`, waits until its turn is at the model, then leaves. */
async function leaveWhileTheModelThinks(spec: RequestSpec): Promise<void> {
  const asked = model.bodies.length;
  const gone = model.abandoned;
  model.script({ kind: 'hang' }, reply('an answer for nobody'));
  const client = leavingClient(brain.url, spec);
  await waitFor(() => model.bodies.length === asked + 1, 'the turn to reach the model', 10_000);
  client.leave();
  // the model request is cancelled when the client leaves, not when its minute is up
  await waitFor(() => model.abandoned === gone + 1, 'the model request to be aborted', 10_000);
}

describe('a client that leaves a non-streamed turn', () => {
  test('POST /v1/chat: the model request is aborted, never retried, and the turn ends cancelled', async () => {
    const message = 'tell me a long story about a fox';
    await leaveWhileTheModelThinks({
      method: 'POST',
      path: '/v1/chat',
      token: brain.token,
      body: { message },
    });
    const row = await turnRow(message);
    expect(row.outcome).toBe('error');
    expect(row.payload.cancelled).toBe(true);
    // no second request: the scripted answer for a retry is still there
    expect(model.bodies).toHaveLength(1);
    expect(model.pending).toBe(1);
    // the conversation holds the question and no answer the client never got
    const next = await callBrain(brain, 'POST', '/v1/chat', {
      message: 'are you there?',
      session_id: row.session_id,
    });
    expect(next.status).toBe(200);
    expect(next.body.reply).toBe('an answer for nobody');
    const roles = (bodyOf(model, 1).messages as { role: string; content: string }[]).map(
      (m) => `${m.role}: ${m.content}`,
    );
    expect(roles.filter((r) => !r.startsWith('system'))).toEqual([
      `user: ${message}`,
      'user: are you there?',
    ]);
  });

  test('POST /v1/chat/completions: the same, in the OpenAI-compatible face', async () => {
    const message = 'tell me a long story about an owl';
    await leaveWhileTheModelThinks({
      method: 'POST',
      path: '/v1/chat/completions',
      token: brain.token,
      body: { model: 'caesar', messages: [{ role: 'user', content: message }] },
    });
    const row = await turnRow(message);
    expect(row.outcome).toBe('error');
    expect(row.payload.cancelled).toBe(true);
    expect(model.bodies).toHaveLength(3);
    expect(model.pending).toBe(1);
  });
});
