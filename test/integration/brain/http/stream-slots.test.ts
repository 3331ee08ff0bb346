import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  pollBrain,
  startBrainProcess,
  stopProcess,
  type BrainProcess,
} from '../../../helpers/brain.js';
import { startFakeOpenAi, reply, type FakeLlm } from '../../../helpers/fake-llm.js';
import { bodyText, leavingClient, neverReadingClient } from '../../../helpers/http-clients.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';
import { writeTokensFile } from '../../../helpers/tokens.js';
import { waitFor } from '../../../helpers/wait.js';

/**
 * Stream slots against a live brain process (real nats-server, `caesar brain`, loopback HTTP):
 * every kind of stream has a limit per token beside the global one, and an event stream whose
 * client never reads a byte gives its slot back within the stall time. The bad clients are
 * raw sockets, paused before they connect and never consumed.
 */

const OPERATOR = 'operator-0123456789abcdefghijklmnop';
const ALPHA = 'alpha-0123456789abcdefghijklmnopqrst';
const BETA = 'beta-0123456789abcdefghijklmnopqrstu';
const GAMMA = 'gamma-0123456789abcdefghijklmnopqrst';
const TOKENS = [
  { name: 'operator', token: OPERATOR },
  { name: 'alpha', token: ALPHA, scopes: ['audit', 'chat'] },
  { name: 'beta', token: BETA, scopes: ['audit', 'chat'] },
  { name: 'gamma', token: GAMMA, scopes: ['audit', 'chat'] },
];
/** Not a local intent: the model answers it. */
const STORY = 'tell me a story about a fox';
/** The stall time of the second brain: short, so that the test waits for it. */
const STALL_MS = 2000;

let nats: TestNats;
let dir: string;
let policyFile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-stream-slots-'));
  policyFile = join(dir, 'policy.yaml');
  await writeFile(policyFile, 'version: 1\nallowed_tools: []\n');
  nats = await startNats();
});

afterAll(async () => {
  await nats?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function brainWith(name: string, env: NodeJS.ProcessEnv): Promise<BrainProcess> {
  const dataDir = join(dir, name);
  await writeTokensFile(join(dataDir, 'api-tokens.yaml'), TOKENS);
  return startBrainProcess({ natsUrl: nats.url, dataDir, policyFile, env });
}

interface Probe {
  readonly status: number;
  readonly body: string;
}

/** Opens `GET /v1/events` as a client that reads; a stream it got is closed again at once. */
async function probeEvents(brain: BrainProcess, token: string): Promise<Probe> {
  const client = leavingClient(brain.url, {
    path: '/v1/events',
    token,
    headers: { accept: 'text/event-stream' },
  });
  const res = await client.response;
  if (res.statusCode === 200) {
    client.leave();
    return { status: 200, body: '' };
  }
  return { status: res.statusCode ?? 0, body: await bodyText(res) };
}

/** Polls until `token`'s next event stream is refused; the refusal. */
function refusedStream(brain: BrainProcess, token: string, what: string): Promise<Probe> {
  return pollBrain(async () => {
    const p = await probeEvents(brain, token);
    return p.status === 429 ? p : undefined;
  }, what);
}

function holdEvents(brain: BrainProcess, token: string, n: number): Socket[] {
  return Array.from({ length: n }, () =>
    neverReadingClient(brain.url, {
      path: '/v1/events',
      token,
      headers: { accept: 'text/event-stream' },
    }),
  );
}

describe('slot limits per token beside the global one', () => {
  let brain: BrainProcess;
  let model: FakeLlm;

  beforeAll(async () => {
    model = await startFakeOpenAi();
    brain = await brainWith('limits', {
      CAESAR_API__MAX_EVENT_STREAMS: '3',
      CAESAR_API__MAX_EVENT_STREAMS_PER_TOKEN: '2',
      CAESAR_API__MAX_CHAT_STREAMS_PER_TOKEN: '1',
      CAESAR_LLM__PROVIDER: 'openai',
      CAESAR_LLM__MODEL: 'gpt-test',
      CAESAR_LLM__OPENAI__BASE_URL: `${model.url}/v1`,
      CAESAR_LLM__OPENAI__API_KEY: 'sk-test-0123456789',
    });
  }, 60_000);

  afterAll(async () => {
    await stopProcess(brain?.proc);
    await model?.close();
  });

  test('one token cannot take every event stream: its third is 429 naming the setting, others still get one', async () => {
    const held = holdEvents(brain, ALPHA, 2);
    try {
      const refused = await refusedStream(brain, ALPHA, "alpha's third event stream refused");
      expect(JSON.parse(refused.body).error).toMatchObject({
        code: 'too_many_requests',
        message: expect.stringContaining('api.max_event_streams_per_token'),
      });
      expect((await probeEvents(brain, BETA)).status).toBe(200);
      // with alpha's two and one of beta's, the brain's three are taken: gamma is refused
      held.push(...holdEvents(brain, BETA, 1));
      const full = await refusedStream(brain, GAMMA, 'every event stream of the brain taken');
      expect(JSON.parse(full.body).error.message).toContain('api.max_event_streams');
      expect(JSON.parse(full.body).error.message).not.toContain('per_token');
    } finally {
      for (const s of held) s.destroy();
    }
  });

  test('chat streams too: a token streaming a turn is refused a second stream (chat and completions), another token is not', async () => {
    model.script({ kind: 'hang' }, reply('Once upon a time.'));
    const first = leavingClient(brain.url, {
      method: 'POST',
      path: '/v1/chat',
      token: GAMMA,
      headers: { accept: 'text/event-stream' },
      body: { message: STORY },
    });
    try {
      await waitFor(() => model.bodies.length === 1, "gamma's first turn to reach the model");
      const headers = {
        authorization: `Bearer ${GAMMA}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      };
      const chat = await fetch(`${brain.url}/v1/chat`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ message: STORY }),
      });
      expect(chat.status).toBe(429);
      expect(((await chat.json()) as { error: { message: string } }).error.message).toContain(
        'api.max_chat_streams_per_token',
      );
      const completion = await fetch(`${brain.url}/v1/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          model: 'caesar',
          stream: true,
          messages: [{ role: 'user', content: STORY }],
        }),
      });
      expect(completion.status).toBe(429);
      expect(await completion.json()).toMatchObject({
        error: { type: 'rate_limit_error', code: 'too_many_requests' },
      });
      // neither refusal reached the model
      expect(model.bodies).toHaveLength(1);
      const other = await fetch(`${brain.url}/v1/chat`, {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${BETA}` },
        body: JSON.stringify({ message: STORY }),
      });
      expect(other.status).toBe(200);
      expect(await other.text()).toContain('Once upon a time.');
    } finally {
      first.leave();
    }
  });
});

describe('an event stream whose client never reads', () => {
  let brain: BrainProcess;

  beforeAll(async () => {
    brain = await brainWith('stall', {
      CAESAR_API__STREAM_STALL: `${STALL_MS}ms`,
      CAESAR_API__MAX_EVENT_STREAMS: '2',
      CAESAR_API__MAX_EVENT_STREAMS_PER_TOKEN: '2',
    });
  }, 60_000);

  afterAll(async () => {
    await stopProcess(brain?.proc);
  });

  test('gives its slot back within the stall time, and other clients can open streams', async () => {
    const held = holdEvents(brain, ALPHA, 2);
    try {
      const full = await refusedStream(
        brain,
        GAMMA,
        'the two never-reading clients to hold both slots',
      );
      expect(JSON.parse(full.body).error.message).toContain('api.max_event_streams');
      // the bound: the stall time, one more for a stream that was writing, and slack for load
      await pollBrain(
        async () => (await probeEvents(brain, GAMMA)).status === 200,
        'a slot to come back from the clients that never read',
        2 * STALL_MS + 8000,
      );
    } finally {
      for (const s of held) s.destroy();
    }
  });
});
