import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { serveTools, type ToolWorker } from '../../../src/legion/index.js';
import { createCalculatorTool } from '../../../workers/calculator/tool.js';
import {
  callBrain,
  pollBrain,
  startBrainProcess,
  stopProcess,
  type BrainProcess,
} from '../../helpers/brain.js';
import { bodyOf, calls, reply, startFakeOpenAi, type FakeLlm } from '../../helpers/fake-llm.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { writeTokensFile } from '../../helpers/tokens.js';

/**
 * What a turn's owner sees and what other tokens do not, against a live brain process (real
 * nats-server, the calculator worker, a loopback model): the rest of a turn paused for a
 * confirmation goes to its owner only, whoever approves it; a named session is one per token.
 */

const OPERATOR = 'operator-0123456789abcdefghijklmnop';
const TABLET = 'tablet-0123456789abcdefghijklmnopqrs';
const KIOSK = 'kiosk-0123456789abcdefghijklmnopqrst';
const APPROVER = 'approver-0123456789abcdefghijklmnop';

const POLICY = `version: 1
allowed_tools:
  - tool: calculator
    id: calc-confirm
    confirm: true
`;

let nats: TestNats;
let dir: string;
let model: FakeLlm;
let worker: ToolWorker;
let brain: BrainProcess;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-turn-owners-'));
  const policyFile = join(dir, 'policy.yaml');
  await writeFile(policyFile, POLICY);
  const dataDir = join(dir, 'var');
  await writeTokensFile(join(dataDir, 'api-tokens.yaml'), [
    { name: 'operator', token: OPERATOR },
    { name: 'tablet', token: TABLET, scopes: ['chat'] },
    { name: 'kiosk', token: KIOSK, scopes: ['chat'] },
    { name: 'approver', token: APPROVER, scopes: ['confirm'] },
  ]);
  nats = await startNats();
  model = await startFakeOpenAi();
  worker = await serveTools([createCalculatorTool({ warmThreads: 1 })], {
    nc: await nats.connect(),
    host: 'test',
  });
  brain = await startBrainProcess({
    natsUrl: nats.url,
    dataDir,
    policyFile,
    env: {
      CAESAR_LLM__PROVIDER: 'openai',
      CAESAR_LLM__MODEL: 'gpt-test',
      CAESAR_LLM__OPENAI__BASE_URL: `${model.url}/v1`,
      CAESAR_LLM__OPENAI__API_KEY: 'sk-test-0123456789',
    },
  });
  await pollBrain(
    async () =>
      (
        (await callBrain(brain, 'GET', '/v1/tools')).body as {
          name: string;
          preflight: { state: string };
        }[]
      ).some((t) => t.name === 'calculator' && t.preflight.state === 'ready'),
    'the calculator to be discovered and ready',
    15_000,
  );
}, 60_000);

afterAll(async () => {
  await stopProcess(brain?.proc);
  await worker?.stop();
  await model?.close();
  await nats?.stop();
  await rm(dir, { recursive: true, force: true });
});

const chat = (token: string, body: Record<string, unknown>) =>
  callBrain(brain, 'POST', '/v1/chat', body, token);

/** The model's view of request `i`: `role: content` per message, the system prompt left out. */
function transcript(i: number): string[] {
  return (bodyOf(model, i).messages as { role: string; content: string | null }[])
    .filter((m) => m.role !== 'system')
    .map((m) => `${m.role}: ${m.content ?? ''}`);
}

/** A turn of `token` that the model pauses with a calculator call needing approval. */
async function pausedTurn(token: string, message: string, continuation: string) {
  model.script(
    calls([{ name: 'calculator', arguments: '{"expression":"17 * 23"}' }]),
    reply(continuation),
  );
  const first = await chat(token, { message });
  expect(first.status).toBe(200);
  const [call] = first.body.tool_calls;
  expect(call.outcome).toBe('confirmation_required');
  return {
    sessionId: first.body.session_id as string,
    confirmation: call.confirmation.id as string,
  };
}

describe('the rest of a turn paused for a confirmation', () => {
  test('another token approves: it gets the decision, never the continuation; the owner finds it in its session', async () => {
    const message = 'tablet asks: seventeen times twenty-three, privately';
    const continuation = 'For the tablet only: 17 times 23 is 391.';
    const turn = await pausedTurn(TABLET, message, continuation);
    const asked = model.bodies.length;

    const approved = await callBrain(
      brain,
      'POST',
      `/v1/confirmations/${turn.confirmation}`,
      { approve: true },
      APPROVER,
    );
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      tool: 'calculator',
      outcome: 'ok',
      decision: 'approved',
    });
    expect(approved.body.chat).toBeUndefined();
    const text = JSON.stringify(approved.body);
    expect(text).not.toContain(continuation);
    expect(text).not.toContain(message);
    // the turn went on all the same: the model read the result and answered, for its owner
    expect(model.bodies).toHaveLength(asked + 1);
    const rows = (await callBrain(brain, 'GET', '/v1/audit?type=chat.completed&actor=tablet'))
      .body as { session_id: string; payload: { reply: string } }[];
    expect(rows.map((r) => [r.session_id, r.payload.reply])).toContainEqual([
      turn.sessionId,
      continuation,
    ]);

    // the owner's next message continues from it
    model.script(reply('You are welcome.'));
    const next = await chat(TABLET, { message: 'thanks', session_id: turn.sessionId });
    expect(next.body.reply).toBe('You are welcome.');
    expect(transcript(asked + 1)).toContain(`assistant: ${continuation}`);
  });

  test('the owner approves its own turn: it gets the rest of it in the answer', async () => {
    const continuation = 'For the operator: 17 times 23 is 391.';
    const turn = await pausedTurn(
      OPERATOR,
      'operator asks: seventeen times twenty-three',
      continuation,
    );
    const approved = await callBrain(brain, 'POST', `/v1/confirmations/${turn.confirmation}`, {
      approve: true,
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ outcome: 'ok', decision: 'approved' });
    expect(approved.body.chat).toMatchObject({ session_id: turn.sessionId, reply: continuation });
  });

  test('a rejection by another token says rejected and carries nothing of the turn either', async () => {
    const continuation = 'For the tablet only: it was rejected.';
    const turn = await pausedTurn(TABLET, 'tablet asks again, privately', continuation);
    const rejected = await callBrain(
      brain,
      'POST',
      `/v1/confirmations/${turn.confirmation}`,
      { approve: false },
      APPROVER,
    );
    expect(rejected.body).toMatchObject({ outcome: 'rejected', decision: 'rejected' });
    expect(rejected.body.chat).toBeUndefined();
    expect(JSON.stringify(rejected.body)).not.toContain(continuation);
  });
});

describe('named sessions', () => {
  test('the same name used by two tokens gives two conversations, neither seeing the other', async () => {
    model.script(reply('Hello Ada.'), reply('Hello, kiosk.'), reply('Your name is Ada.'));
    const tablet = await chat(TABLET, {
      message: 'my name is Ada',
      session_id: 'kitchen',
      create_session: true,
    });
    expect(tablet.status).toBe(200);
    const asked = model.bodies.length - 1;
    const kiosk = await chat(KIOSK, {
      message: 'who was here before me?',
      session_id: 'kitchen',
      create_session: true,
    });
    expect(kiosk.status).toBe(200);
    expect(kiosk.body.session_id).toBe('kitchen');
    expect(transcript(asked + 1)).toEqual(['user: who was here before me?']);

    const again = await chat(TABLET, { message: 'what is my name?', session_id: 'kitchen' });
    expect(again.body.reply).toBe('Your name is Ada.');
    expect(transcript(asked + 2)).toEqual([
      'user: my name is Ada',
      'assistant: Hello Ada.',
      'user: what is my name?',
    ]);
  });

  test('a name only another token uses is still unknown without create_session', async () => {
    model.script(reply('Noted.'));
    expect(
      (
        await chat(TABLET, {
          message: 'remember the milk',
          session_id: 'pantry',
          create_session: true,
        })
      ).status,
    ).toBe(200);
    const probe = await chat(KIOSK, { message: 'what is in here?', session_id: 'pantry' });
    expect(probe.status).toBe(404);
    expect(probe.body.error.code).toBe('session_not_found');
  });
});
