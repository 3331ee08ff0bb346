import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUser } from '@nats-io/nkeys';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import type { ChatResponse } from '../../../src/brain/api/index.js';
import { startBrain } from '../../../src/brain/daemon/index.js';
import type { RunningBrain } from '../../../src/brain/daemon/brain.js';
import { loadConfig } from '../../../src/config/index.js';
import { SHIPPED_INTENTS_FILE } from '../../../src/config/shipped.js';
import { action, defineTool, serveTools, type ToolWorker } from '../../../src/legion/index.js';
import {
  brainPermissions,
  dispatchSubject,
  workerPermissions,
} from '../../../src/protocol/index.js';
import { calls, reply, startFakeOpenAi, type FakeLlm } from '../../helpers/fake-llm.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { firstToken } from '../../helpers/tokens.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * A tool with two actions (ADR 0092) end to end: served under its own least-privilege NKEY,
 * discovered as two callables, judged per action by the policy, offered to a model under
 * function names the model APIs accept, audited under the full name.
 */

const OPENAI_KEY = 'sk-test-openai-0123456789';
const POLICY = `version: 1
allowed_tools:
  - tool: notes
    actions: [read]
`;

const ran: string[] = [];
const notesTool = defineTool({
  name: 'notes',
  version: '1.0.0',
  title: 'Notes',
  description: 'Reads and writes the household notes.',
  executionLocality: 'local',
  resourceRequirements: { cpu: 'low', memory_mb: 8, network: false },
  actions: {
    read: action({
      description: 'Reads a note by its title. Example: {"title": "wifi"}.',
      input: z.strictObject({ title: z.string().max(64) }),
      output: z.object({ text: z.string() }),
      annotations: { readOnly: true, openWorld: false },
      handler: (input: { title: string }) => {
        ran.push(`read ${input.title}`);
        return { text: `the ${input.title} note` };
      },
    }),
    write: action({
      description: 'Writes a note.',
      input: z.strictObject({ title: z.string().max(64), text: z.string().max(1000) }),
      output: z.object({ saved: z.boolean() }),
      annotations: { readOnly: false, openWorld: false },
      handler: (input: { title: string }) => {
        ran.push(`write ${input.title}`);
        return { saved: true };
      },
    }),
  },
});

const dec = new TextDecoder();
function identity() {
  const kp = createUser();
  return { seed: dec.decode(kp.getSeed()), pub: kp.getPublicKey() };
}

interface ToolRow {
  readonly name: string;
  readonly service?: string;
  readonly preflight: { readonly state: string };
}
interface AuditRow {
  readonly event_type: string;
  readonly tool: string | null;
}

let dir: string;
let nats: TestNats;
let worker: ToolWorker;
let model: FakeLlm;
let brain: RunningBrain;
let headers: Record<string, string>;
const workerErrors: string[] = [];
const notesId = identity();
const otherId = identity();
const brainId = identity();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-actions-'));
  await writeFile(join(dir, 'policy.yaml'), POLICY);
  for (const [name, id] of Object.entries({ notesId, otherId, brainId })) {
    await writeFile(join(dir, `${name}.nk`), `${id.seed}\n`, { mode: 0o600 });
  }
  const users = [
    { nkey: notesId.pub, permissions: workerPermissions(['notes']) },
    { nkey: otherId.pub, permissions: workerPermissions(['calculator']) },
    { nkey: brainId.pub, permissions: brainPermissions(brainId.pub) },
  ];
  nats = await startNats({ config: `authorization: ${JSON.stringify({ users })}\n` });
  const nc = await nats.connect({ auth: { kind: 'nkey', seedFile: join(dir, 'notesId.nk') } });
  void (async () => {
    for await (const s of nc.status()) if (s.type === 'error') workerErrors.push(String(s.error));
  })();
  worker = await serveTools([notesTool], { nc, host: 'test' });
  model = await startFakeOpenAi({ key: OPENAI_KEY });
  const config = await loadConfig({
    env: {
      CAESAR_BUS__URL: nats.url,
      CAESAR_BUS__NKEY_SEED_FILE: join(dir, 'brainId.nk'),
      CAESAR_DATA_DIR: join(dir, 'var'),
      CAESAR_POLICY__FILE: join(dir, 'policy.yaml'),
      CAESAR_BRAIN__INTENTS_FILE: SHIPPED_INTENTS_FILE,
      CAESAR_API__PORT: '0',
      CAESAR_LOG__LEVEL: 'silent',
      CAESAR_LLM__PROVIDER: 'openai',
      CAESAR_LLM__MODEL: 'gpt-test',
      CAESAR_LLM__OPENAI__BASE_URL: `${model.url}/v1`,
      CAESAR_LLM__OPENAI__API_KEY: OPENAI_KEY,
    },
    cwd: dir,
  });
  brain = await startBrain(config, { sweepIntervalMs: 500 });
  const token = await firstToken(join(dir, 'var', 'api-tokens.yaml'));
  headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
}, 60_000);

afterAll(async () => {
  await brain?.close();
  await model?.close();
  await worker?.stop();
  await nats?.stop();
  await rm(dir, { recursive: true, force: true });
});

const get = async <T>(path: string): Promise<T> => {
  const res = await fetch(`${brain.url}${path}`, { headers });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
};

describe('a tool with two actions', () => {
  test('is discovered as two callables of one service, each ready', async () => {
    const tools = await waitFor(
      async () => {
        const all = await get<ToolRow[]>('/v1/tools');
        const ready = all.filter((t) => t.preflight.state === 'ready');
        return ready.length === 2 ? all : undefined;
      },
      'both actions to be discovered and ready',
      15_000,
      50,
    );
    expect(tools.map((t) => t.name).sort()).toEqual(['notes.read', 'notes.write']);
    // the worker's own subscriptions (each action's dispatch and preflight, the tool's
    // discovery) all fit the identity `workerPermissions(['notes'])` grants
    expect(workerErrors).toEqual([]);
  });

  test("another tool's identity may not take an action's calls", async () => {
    const nc = await nats.connect({ auth: { kind: 'nkey', seedFile: join(dir, 'otherId.nk') } });
    const refused = new Promise<string>((resolve) => {
      void (async () => {
        for await (const s of nc.status()) if (s.type === 'error') resolve(String(s.error));
      })();
    });
    nc.subscribe(dispatchSubject('notes.write'));
    await nc.flush();
    expect(await refused).toMatch(/permissions violation.*caesar\.dispatch\.tool\.notes\.write/i);
    await nc.close();
  });

  test('the model is offered the allowed action under a name its API takes; the other is denied', async () => {
    ran.length = 0;
    model.script(
      calls([
        { id: 'call_r', name: 'notes-read', arguments: '{"title":"wifi"}' },
        { id: 'call_w', name: 'notes-write', arguments: '{"title":"wifi","text":"x"}' },
      ]),
      reply('The wifi note says what it says.'),
    );
    const res = await fetch(`${brain.url}/v1/chat`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ message: 'what do my notes say about the wifi?' }),
    });
    expect(res.status).toBe(200);
    const r = (await res.json()) as ChatResponse;
    const offered = (model.bodies.at(-2)!.tools as { function: { name: string } }[]).map(
      (t) => t.function.name,
    );
    // only what the policy allows is offered, and no name carries a dot
    expect(offered).toContain('notes-read');
    expect(offered).not.toContain('notes-write');
    expect(r.tool_calls.map((c) => [c.tool, c.outcome])).toEqual([
      ['notes.read', 'ok'],
      ['notes.write', 'denied'],
    ]);
    // the denied action never reached the worker
    expect(ran).toEqual(['read wifi']);
    const rows = await get<AuditRow[]>('/v1/audit?order=oldest');
    const byType = (type: string) => rows.filter((x) => x.event_type === type).map((x) => x.tool);
    expect(byType('tool.called')).toEqual(['notes.read']);
    expect(byType('tool.denied')).toEqual(['notes.write']);
  });
});
