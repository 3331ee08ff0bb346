import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { firstToken } from '../../helpers/tokens.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ChatResponse } from '../../../src/brain/api/index.js';
import { startBrain } from '../../../src/brain/daemon/index.js';
import type { RunningBrain } from '../../../src/brain/daemon/brain.js';
import { loadConfig } from '../../../src/config/index.js';
import { SHIPPED_INTENTS_FILE } from '../../../src/config/shipped.js';
import { serveTools, type ToolWorker } from '../../../src/legion/index.js';
import { calculatorTool } from '../../../workers/calculator/index.js';
import { createEchoTool } from '../../fixtures/tools.js';
import {
  calls,
  failure,
  reply,
  startFakeAnthropic,
  startFakeOpenAi,
  type FakeLlm,
} from '../../helpers/fake-llm.js';
import { closedPort } from '../../helpers/ports.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * The LLM planner end to end: a real brain (startBrain from a config read off env vars, as
 * an operator sets it), real workers over NATS, the policy file and the audit log, and a
 * loopback model that speaks OpenAI's chat completions or Anthropic's messages and follows
 * a script. Each scenario checks the tool calls that ran, the audit rows and the reply.
 */

const POLICY = `version: 1
allowed_tools:
  - calculator
`;
// none of these messages is a local intent: the model answers them
const ASK = 'tell me seventeen times twenty-three';
const OPENAI_KEY = 'sk-test-openai-0123456789';
const ANTHROPIC_KEY = 'sk-ant-test-0123456789';

let nats: TestNats;
let worker: ToolWorker;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-llm-e2e-'));
  await writeFile(join(dir, 'policy.yaml'), POLICY);
  nats = await startNats();
  // echo runs, but the policy never grants it
  worker = await serveTools([calculatorTool, createEchoTool()], {
    nc: await nats.connect(),
    host: 'test',
  });
});

afterAll(async () => {
  await worker?.stop();
  await nats?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** An audit row as `GET /v1/audit` exports it. */
interface Row {
  readonly event_type: string;
  readonly outcome: string;
  readonly tool: string | null;
  readonly payload: unknown;
}

interface Brain extends AsyncDisposable {
  readonly running: RunningBrain;
  readonly token: string;
  readonly dataDir: string;
  chat(message: string): Promise<ChatResponse>;
  rows(type: string): Promise<Row[]>;
}

let n = 0;
/** A brain whose llm section comes from `env`, ready once the calculator is offered. */
async function brainWith(env: Record<string, string>): Promise<Brain> {
  n += 1;
  const dataDir = join(dir, `var-${n}`);
  const config = await loadConfig({
    env: {
      CAESAR_BUS__URL: nats.url,
      CAESAR_DATA_DIR: dataDir,
      CAESAR_POLICY__FILE: join(dir, 'policy.yaml'),
      // the brain's own intent rules: in-process, nothing copies them to the data dir
      CAESAR_BRAIN__INTENTS_FILE: SHIPPED_INTENTS_FILE,
      CAESAR_API__PORT: '0',
      CAESAR_LOG__LEVEL: 'silent',
      ...env,
    },
    cwd: dir,
  });
  const running = await startBrain(config, { sweepIntervalMs: 500 });
  const token = await firstToken(join(dataDir, 'api-tokens.yaml'));
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  await waitFor(
    async () => {
      const res = await fetch(`${running.url}/v1/tools`, { headers });
      const tools = (await res.json()) as { name: string; preflight: { state: string } }[];
      return tools.some((t) => t.name === 'calculator' && t.preflight.state === 'ready');
    },
    'the calculator to be discovered and ready',
    15_000,
    50,
  );
  return {
    running,
    token,
    dataDir,
    async chat(message) {
      const res = await fetch(`${running.url}/v1/chat`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ message }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as ChatResponse;
    },
    async rows(type) {
      const res = await fetch(`${running.url}/v1/audit?type=${type}&order=oldest`, { headers });
      expect(res.status).toBe(200);
      return (await res.json()) as Row[];
    },
    [Symbol.asyncDispose]: () => running.close(),
  };
}

const openAiEnv = (model: FakeLlm, extra: Record<string, string> = {}) => ({
  CAESAR_LLM__PROVIDER: 'openai',
  CAESAR_LLM__MODEL: 'gpt-test',
  CAESAR_LLM__OPENAI__BASE_URL: `${model.url}/v1`,
  CAESAR_LLM__OPENAI__API_KEY: OPENAI_KEY,
  ...extra,
});

const toolMessages = (body: Record<string, unknown>) =>
  (body.messages as { role: string; content: string; tool_call_id?: string }[]).filter(
    (m) => m.role === 'tool',
  );

describe('OpenAI-compatible model', () => {
  test('a single tool call: offered, run through the gate, answered', async () => {
    await using model = await startFakeOpenAi({ key: OPENAI_KEY });
    model.script(
      calls([{ id: 'call_1', name: 'calculator', arguments: '{"expression":"17 * 23"}' }]),
      reply('17 times 23 is 391.', { usage: { input: 300, output: 9 } }),
    );
    await using brain = await brainWith(openAiEnv(model));
    const r = await brain.chat(ASK);
    expect(r).toMatchObject({ reply: '17 times 23 is 391.', planner: 'llm', iterations: 2 });
    expect(r.tool_calls.map((c) => [c.tool, c.outcome, c.result])).toEqual([
      ['calculator', 'ok', { expression: '17 * 23', result: '391', value: 391 }],
    ]);
    // the model was offered only what the policy allows, each with its card
    const offered = (
      model.bodies[0]!.tools as { function: { name: string; description: string } }[]
    ).map((t) => t.function);
    // and the brain's own check_preconditions, offered whenever a tool is (ADR 0091)
    expect(offered.map((t) => t.name)).toEqual(['calculator', 'check_preconditions']);
    expect(offered[0]!.description).toMatch(/Facts:[\s\S]*Status: ready/);
    // the result came back under the model's call id, fenced as data
    const [result] = toolMessages(model.bodies[1]!);
    expect(result?.tool_call_id).toBe('call_1');
    expect(result?.content).toContain('"result":"391"');
    expect((await brain.rows('tool.called')).map((x) => x.tool)).toEqual(['calculator']);
    const rounds = await brain.rows('llm.called');
    expect(rounds.map((x) => x.payload)).toEqual([
      expect.objectContaining({ iteration: 1, provider: 'openai', tool_calls: 1 }),
      expect.objectContaining({ iteration: 2, usage: { input: 300, output: 9 }, tool_calls: 0 }),
    ]);
    expect(JSON.stringify(rounds)).not.toContain(OPENAI_KEY);
    expect((await brain.rows('chat.completed'))[0]?.payload).toMatchObject({
      planner: 'llm',
      capped: false,
    });
  });

  test('plan_first on the wire: the plan request has tools and no result; the reply request has the results and no tools', async () => {
    await using model = await startFakeOpenAi({ key: OPENAI_KEY });
    model.script(
      calls([
        { id: 'call_p1', name: 'calculator', arguments: '{"expression":"17 * 23"}' },
        {
          id: 'call_p2',
          name: 'calculator',
          arguments: '{"expression":{"$from":1,"path":"/result"}}',
        },
      ]),
      reply('17 times 23 is 391.'),
    );
    await using brain = await brainWith(openAiEnv(model, { CAESAR_LLM__MODE: 'plan_first' }));
    const r = await brain.chat(ASK);
    expect(r).toMatchObject({ reply: '17 times 23 is 391.', planner: 'llm', iterations: 2 });
    expect(r.tool_calls.map((c) => [c.outcome, c.input])).toEqual([
      ['ok', { expression: '17 * 23' }],
      ['ok', { expression: '391' }],
    ]);
    type Message = { role: string; content: unknown; tool_calls?: unknown };
    const [plan, answer] = model.bodies as [Record<string, unknown>, Record<string, unknown>];
    const planMessages = plan.messages as Message[];
    // the plan: the tools offered, the system prompt with the plan rules, the words alone
    expect((plan.tools as unknown[]).length).toBe(2); // calculator and check_preconditions
    expect(planMessages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(String(planMessages[0]!.content)).toContain('Plan first: make the whole plan now.');
    expect(String(planMessages[0]!.content)).toContain('{"$from": N, "path": "<JSON Pointer>"}');
    // the reply: no tools, no tool call or tool message, the results as fenced data
    expect(answer.tools).toBeUndefined();
    expect(answer.tool_choice).toBeUndefined();
    const replyMessages = answer.messages as Message[];
    expect(replyMessages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(replyMessages.some((m) => m.tool_calls !== undefined)).toBe(false);
    expect(String(replyMessages[0]!.content)).toContain(
      'Plan first: the calls you planned have run',
    );
    expect(String(replyMessages[2]!.content)).toContain('[called calculator {"expression":"391"}]');
    expect(String(replyMessages[3]!.content)).toContain(
      '<tool_data>\n{"tool":"calculator","outcome":"ok","result":{"expression":"391","result":"391","value":391}}',
    );
    const rounds = await brain.rows('llm.called');
    expect(rounds.map((x) => x.payload)).toEqual([
      expect.objectContaining({ iteration: 1, mode: 'plan_first', role: 'plan', tool_calls: 2 }),
      expect.objectContaining({ iteration: 2, mode: 'plan_first', role: 'reply', tool_calls: 0 }),
    ]);
  });

  test('two calls in one round, one the policy denies: denied, audited, reported back', async () => {
    await using model = await startFakeOpenAi({ key: OPENAI_KEY });
    model.script(
      calls([
        { id: 'call_a', name: 'calculator', arguments: '{"expression":"2^10"}' },
        { id: 'call_b', name: 'echo', arguments: '{"id":"x","text":"hi"}' },
      ]),
      reply('2^10 is 1024; I may not echo.'),
    );
    await using brain = await brainWith(openAiEnv(model));
    const r = await brain.chat('compute two to the tenth and echo hi');
    expect(r.tool_calls.map((c) => [c.tool, c.outcome])).toEqual([
      ['calculator', 'ok'],
      ['echo', 'denied'],
    ]);
    expect((await brain.rows('tool.denied')).map((x) => x.tool)).toEqual(['echo']);
    const results = toolMessages(model.bodies[1]!);
    expect(results.map((m) => m.tool_call_id)).toEqual(['call_a', 'call_b']);
    expect(results[1]?.content).toMatch(/"outcome":"denied"/);
    expect(r.reply).toBe('2^10 is 1024; I may not echo.');
  });

  test('a multi-step loop: each round sees the results before', async () => {
    await using model = await startFakeOpenAi({ key: OPENAI_KEY });
    model.script(
      calls([{ id: 'c1', name: 'calculator', arguments: '{"expression":"6 * 7"}' }]),
      calls([{ id: 'c2', name: 'calculator', arguments: '{"expression":"42 + 1"}' }]),
      reply('43.'),
    );
    await using brain = await brainWith(openAiEnv(model));
    const r = await brain.chat('take six sevens and add one');
    expect(r.iterations).toBe(3);
    expect(r.tool_calls.map((c) => (c.result as { result: string }).result)).toEqual(['42', '43']);
    expect(toolMessages(model.bodies[2]!).map((m) => m.tool_call_id)).toEqual(['c1', 'c2']);
  });

  test('the cap: the calls asked for in the last round do not run, and the reply says which', async () => {
    await using model = await startFakeOpenAi({ key: OPENAI_KEY });
    const again = () => calls([{ name: 'calculator', arguments: '{"expression":"1 + 1"}' }]);
    model.script(again(), again());
    await using brain = await brainWith(openAiEnv(model, { CAESAR_BRAIN__MAX_ITERATIONS: '2' }));
    const r = await brain.chat('keep adding forever');
    expect(r).toMatchObject({ capped: true, iterations: 2 });
    expect(r.tool_calls).toHaveLength(1);
    expect(r.reply).toContain('These calls did not run:\n- calculator {"expression":"1 + 1"}');
    expect((await brain.rows('chat.completed'))[0]).toMatchObject({ outcome: 'error' });
  });

  test('malformed arguments come back as invalid_input, and the model corrects them', async () => {
    await using model = await startFakeOpenAi({ key: OPENAI_KEY });
    model.script(
      calls([{ id: 'bad', name: 'calculator', arguments: '{expression: 2+2' }]),
      calls([{ id: 'good', name: 'calculator', arguments: '{"expression":"2+2"}' }]),
      reply('4.'),
    );
    await using brain = await brainWith(openAiEnv(model));
    const r = await brain.chat('two plus two, quickly');
    expect(r.tool_calls.map((c) => [c.outcome, c.error?.code])).toEqual([
      ['failed', 'invalid_input'],
      ['ok', undefined],
    ]);
    expect(toolMessages(model.bodies[1]!)[0]?.content).toMatch(/invalid_input/);
    expect(r.reply).toBe('4.');
  });

  test('a 429 with Retry-After is waited out and retried', async () => {
    await using model = await startFakeOpenAi({ key: OPENAI_KEY });
    model.script(
      failure(429, { headers: { 'retry-after-ms': '50' }, message: 'slow down' }),
      reply('Hello!'),
    );
    await using brain = await brainWith(openAiEnv(model));
    const r = await brain.chat('say hello to me');
    expect(r.reply).toBe('Hello!');
    expect(model.bodies).toHaveLength(2);
    const [round] = await brain.rows('llm.called');
    expect(
      (round?.payload as { attempts: { outcome: string; status?: number }[] }).attempts,
    ).toEqual([
      expect.objectContaining({ outcome: 'rate_limited', status: 429 }),
      expect.objectContaining({ outcome: 'ok' }),
    ]);
  });
});

describe('tags as specified (ADR 0088): every listed tag, tool on every tool', () => {
  test('GET /v1/tools and the offered set use the one filter: tool,home lists and offers nothing', async () => {
    await using model = await startFakeOpenAi({ key: OPENAI_KEY });
    model.script(reply('No tool fits.'));
    await using brain = await brainWith(
      openAiEnv(model, { CAESAR_LLM__INCLUDE_TAGS: 'tool,home' }),
    );
    const listed = async (query: string) => {
      const res = await fetch(`${brain.running.url}/v1/tools${query}`, {
        headers: { authorization: `Bearer ${brain.token}` },
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { name: string }[]).map((t) => t.name).sort();
    };
    expect(await listed('?include_tags=tool')).toEqual(['calculator', 'echo']);
    expect(await listed('?include_tags=tool,math')).toEqual(['calculator']);
    expect(await listed('?include_tags=tool,home')).toEqual([]);
    expect(await listed('?include_tags=tool&exclude_tags=math')).toEqual(['echo']);
    // the calculator is granted and ready, but it is not a home tool: the model sees none
    expect((await brain.chat(ASK)).reply).toBe('No tool fits.');
    expect(model.bodies[0]!.tools ?? []).toEqual([]);
  });
});

describe('failover and Anthropic', () => {
  test('a dead primary fails over to Anthropic, which runs the tool with tool_use/tool_result', async () => {
    await using claude = await startFakeAnthropic({ key: ANTHROPIC_KEY });
    claude.script(
      calls([{ id: 'toolu_1', name: 'calculator', arguments: '{"expression":"17 * 23"}' }]),
      reply('391.'),
    );
    await using brain = await brainWith({
      CAESAR_LLM__PROVIDER: 'openai',
      CAESAR_LLM__MODEL: 'gpt-test',
      CAESAR_LLM__OPENAI__BASE_URL: `http://127.0.0.1:${await closedPort()}/v1`,
      CAESAR_LLM__OPENAI__API_KEY: OPENAI_KEY,
      CAESAR_LLM__FALLBACK: 'anthropic',
      CAESAR_LLM__ANTHROPIC__BASE_URL: claude.url,
      CAESAR_LLM__ANTHROPIC__API_KEY: ANTHROPIC_KEY,
      CAESAR_LLM__ANTHROPIC__MODEL: 'claude-test',
    });
    const r = await brain.chat(ASK);
    expect(r.reply).toBe('391.');
    expect(r.tool_calls.map((c) => [c.tool, c.outcome])).toEqual([['calculator', 'ok']]);
    const second = claude.bodies[1]!.messages as { role: string; content: unknown }[];
    expect(second.at(-1)).toMatchObject({
      role: 'user',
      content: [
        expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_1', is_error: false }),
      ],
    });
    const [first] = await brain.rows('llm.called');
    expect(
      (first?.payload as { attempts: { provider: string; outcome: string }[] }).attempts.map(
        (a) => [a.provider, a.outcome],
      ),
    ).toEqual([
      ['openai', 'connect'],
      ['anthropic', 'ok'],
    ]);
  });

  test('no model reachable: the reply says what was tried', async () => {
    await using brain = await brainWith({
      CAESAR_LLM__PROVIDER: 'ollama',
      CAESAR_LLM__MODEL: 'llama-test',
      CAESAR_LLM__OLLAMA__BASE_URL: `http://127.0.0.1:${await closedPort()}`,
    });
    const r = await brain.chat('hello there, anyone?');
    expect(r.reply).toMatch(
      /^I couldn't get an answer from a language model: no model could be reached: ollama \(llama-test at 127\.0\.0\.1:\d+\)/,
    );
    expect((await brain.rows('llm.called'))[0]).toMatchObject({ outcome: 'error' });
  });
});

describe('a streamed chat', () => {
  test('sends the tool call, its result and the model text as server-sent events', async () => {
    await using model = await startFakeOpenAi({ key: OPENAI_KEY });
    model.script(
      calls([{ id: 'call_s', name: 'calculator', arguments: '{"expression":"17 * 23"}' }]),
      reply('It is 391.'),
    );
    await using brain = await brainWith(openAiEnv(model));
    const res = await fetch(`${brain.running.url}/v1/chat`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${brain.token}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({ message: ASK }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await res.text())
      .split('\n\n')
      .map((block) => /^event: (\S+)/m.exec(block)?.[1])
      .filter((e) => e !== undefined);
    expect(events[0]).toBe('tool_call');
    expect(events).toContain('tool_result');
    expect(events.filter((e) => e === 'text').length).toBeGreaterThan(0);
    expect(events.at(-1)).toBe('done');
    // the model was asked to stream
    expect(model.bodies.every((b) => b.stream === true)).toBe(true);
  });
});

describe('a confirmation inside a planner turn', () => {
  test('pauses the turn; approving it answers with the rest of the turn', async () => {
    await writeFile(
      join(dir, 'confirm.yaml'),
      'version: 1\nallowed_tools:\n  - tool: calculator\n    confirm: true\n',
    );
    await using model = await startFakeOpenAi({ key: OPENAI_KEY });
    model.script(
      calls([{ id: 'call_c', name: 'calculator', arguments: '{"expression":"17 * 23"}' }]),
      reply('Approved and done: 391.'),
    );
    await using brain = await brainWith(
      openAiEnv(model, { CAESAR_POLICY__FILE: join(dir, 'confirm.yaml') }),
    );
    const first = await brain.chat(ASK);
    const ticket = first.tool_calls[0]?.confirmation;
    expect(first.reply).toMatch(/^This needs your approval: .*caesar confirm /);
    expect(model.bodies).toHaveLength(1);
    const res = await fetch(`${brain.running.url}/v1/confirmations/${ticket!.id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${brain.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ approve: true }),
    });
    const decided = (await res.json()) as { outcome: string; chat?: ChatResponse };
    expect(decided.outcome).toBe('ok');
    expect(decided.chat).toMatchObject({
      session_id: first.session_id,
      reply: 'Approved and done: 391.',
      iterations: 2,
    });
    expect(toolMessages(model.bodies[1]!)).toEqual([
      expect.objectContaining({
        tool_call_id: 'call_c',
        content: expect.stringContaining('"result":"391"'),
      }),
    ]);
  });
});

describe('the OpenAI-compatible endpoint, with the official client', () => {
  test('a completion that used a tool, streamed and not', async () => {
    await using model = await startFakeOpenAi({ key: OPENAI_KEY });
    const toolRound = () => calls([{ name: 'calculator', arguments: '{"expression":"17 * 23"}' }]);
    model.script(toolRound(), reply('It is 391.'), toolRound(), reply('It is 391.'));
    await using brain = await brainWith(openAiEnv(model));
    const client = new OpenAI({ baseURL: `${brain.running.url}/v1`, apiKey: brain.token });
    const done = await client.chat.completions.create({
      model: 'caesar',
      messages: [{ role: 'user', content: ASK }],
    });
    expect(done.choices[0]?.message.content).toBe('It is 391.');
    const stream = await client.chat.completions.create({
      model: 'caesar',
      messages: [{ role: 'user', content: ASK }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('It is 391.');
    expect(await brain.rows('tool.called')).toHaveLength(2);
  });
});
