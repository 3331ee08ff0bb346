import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { AuditLog } from '../../../src/audit/index.js';
import { Agent } from '../../../src/brain/agent/index.js';
import type { Planner } from '../../../src/brain/agent/ports.js';
import type { ConversationStore } from '../../../src/brain/conversations/store.js';
import type { ToolGateway } from '../../../src/brain/gateway/index.js';
import { loadIntents } from '../../../src/brain/intents/index.js';
import type { Registry } from '../../../src/brain/registry/index.js';
import { SHIPPED_INTENTS_FILE } from '../../../src/config/shipped.js';
import { createCalculatorTool } from '../../../workers/calculator/tool.js';

// a warm thread: the deadlines here time the call, not a cold mathjs start (ADR 0048)
const calculatorTool = createCalculatorTool({ warmThreads: 1 });
import { createEchoTool } from '../../fixtures/tools.js';
import { startBrainStack, type BrainParts, type BrainStack } from '../../helpers/brain-parts.js';
import { ScriptedPlanner } from '../../helpers/scripted-planner.js';

describe('agent loop (real intents, gateway, NATS, audit log, conversations)', () => {
  let stack: BrainStack;
  let parts: BrainParts;
  let audit: AuditLog;
  let registry: Registry;
  let gateway: ToolGateway;
  let conversations: ConversationStore;

  // One nats-server and worker for the file; each test gets a fresh audit log, conversation
  // store, policy file and gateway on it (issue 30).
  beforeAll(async () => {
    stack = await startBrainStack({
      policy: 'version: 1\nallowed_tools:\n  - calculator\n  - echo\n',
      tools: [calculatorTool, createEchoTool()],
    });
  });

  afterAll(() => stack?.close());

  beforeEach(async () => {
    parts = await stack.parts();
    ({ audit, registry, gateway, conversations } = parts);
  });

  afterEach(() => parts?.close());

  async function agentWith(planner?: Planner, maxIterations = 3) {
    return new Agent({
      gate: gateway,
      intents: await loadIntents(SHIPPED_INTENTS_FILE),
      conversations,
      audit,
      ...(planner ? { planner } : {}),
      specOf: (tool) => registry.tool(tool)?.spec ?? null,
      maxIterations,
      timeZone: 'UTC',
    });
  }

  const chatRows = () => audit.query({ types: ['chat.completed'] });

  test('a matched intent runs its tool through the gate and renders the reply', async () => {
    const agent = await agentWith();
    const r = await agent.chat({ message: 'What is 17 * 23?' }, { actor: 'ops' });
    expect(r.reply).toBe('17 * 23 = 391');
    expect(r).toMatchObject({ planner: 'intent', iterations: 1, capped: false });
    const rows = audit.query({ decisionId: r.tool_calls[0]?.decision_id ?? '', order: 'oldest' });
    expect(rows.map((x) => [x.type, x.sessionId, x.actor])).toEqual([
      ['tool.called', r.session_id, 'ops'],
      ['tool.result', r.session_id, 'ops'],
    ]);
    expect(chatRows()[0]?.payload).toMatchObject({ planner: 'intent', capped: false });
  });

  test('with no planner, an unmatched message gets a short offline reply with examples', async () => {
    const agent = await agentWith();
    const r = await agent.chat({ message: 'tell me a joke' }, { actor: 'ops' });
    expect(r.planner).toBe('none');
    expect(r.tool_calls).toEqual([]);
    expect(r.reply).toMatch(/^No local rule matched that, and no language model is set up/);
    expect(r.reply).toMatch(/what is 17 \* 23/);
    expect(r.reply).toMatch(/`\/help setup` in `caesar chat`, or the Tools panel/);
    expect(r.reply.split('\n')).toHaveLength(3);
  });

  // Issue 29, point 4: each of these got the same wall of setup text before
  test('with no planner, a greeting, the time, the date and "what can you do" get their own answers', async () => {
    const now = new Date('2026-12-05T14:05:00Z');
    const agent = new Agent({
      gate: gateway,
      intents: await loadIntents(SHIPPED_INTENTS_FILE),
      conversations,
      audit,
      timeZone: 'Europe/Berlin',
      now: () => now,
    });
    const ask = async (message: string) => {
      const r = await agent.chat({ message }, { actor: 'ops' });
      expect(r).toMatchObject({ planner: 'none', tool_calls: [], iterations: 0 });
      return r.reply;
    };
    const hello = await ask('Hello!');
    expect(hello).toMatch(/^Hello! No language model is set up/);
    expect(hello).toContain(
      'Right now I can tell the time and date, read your calendar, do arithmetic',
    );
    expect(hello.split('\n')).toHaveLength(2);
    expect(await ask('what time is it?')).toBe(
      "It's 15:05 on Saturday, 5 December 2026 (Europe/Berlin, UTC+01:00).",
    );
    expect(await ask("what's the date")).toBe(
      'Today is Saturday, 5 December 2026 (2026-12-05, Europe/Berlin, UTC+01:00).',
    );
    const help = await ask('what can you do');
    expect(help.split('\n')[0]).toBe('Without a language model, I can:');
    expect(help).toContain("- do arithmetic and unit conversions (e.g. 'what is 17 * 23')");
    expect(help).not.toMatch(/CAESAR_/);
    const rows = chatRows().map((x) => (x.payload as { planner: string }).planner);
    expect(rows).toEqual(['none', 'none', 'none', 'none']);
  });

  test("with a planner, a greeting and the time are the model's to answer", async () => {
    const planner = new ScriptedPlanner([
      { type: 'reply', text: 'Hi! How can I help?' },
      { type: 'reply', text: 'It is five past three.' },
    ]);
    const agent = await agentWith(planner);
    expect((await agent.chat({ message: 'hello' }, { actor: 'ops' })).reply).toBe(
      'Hi! How can I help?',
    );
    expect((await agent.chat({ message: 'what time is it' }, { actor: 'ops' })).planner).toBe(
      'llm',
    );
  });

  // Issue 29, point 10: "convert 10 kg to pounds" gave `unknown name "pounds"`
  test('unit names as people write them are converted by the real calculator', async () => {
    const agent = await agentWith();
    const ask = async (message: string) => {
      const r = await agent.chat({ message }, { actor: 'ops' });
      expect(r.tool_calls.map((c) => [c.tool, c.outcome])).toEqual([['calculator', 'ok']]);
      return r.reply;
    };
    expect(await ask('convert 10 kg to pounds')).toBe('10 kg to lb = 22.046226218488 lb');
    expect(await ask('convert 10 degrees Celsius to degrees Fahrenheit')).toBe(
      '10 degC to degF = 50 degF',
    );
    expect(await ask('what is 60 miles per hour in km/h')).toBe(
      '60 mi/h in km/h = 96.56064 km / h',
    );
  });

  test('the planner sees the history and its tool calls go through the gate', async () => {
    const planner = new ScriptedPlanner([
      {
        type: 'tool_calls',
        text: '',
        calls: [{ id: 'c1', tool: 'echo', input: { id: 'p1', text: 'hi' } }],
      },
      { type: 'reply', text: 'echoed' },
    ]);
    const agent = await agentWith(planner);
    const r = await agent.chat({ message: 'please echo hi' }, { actor: 'ops' });
    expect(r).toMatchObject({ reply: 'echoed', planner: 'llm', iterations: 2, capped: false });
    expect(r.tool_calls.map((c) => [c.tool, c.outcome])).toEqual([['echo', 'ok']]);
    const second = planner.requests[1]?.history.map((t) => t.role);
    expect(second).toEqual(['user', 'tool']);
  });

  test('hitting max_iterations is told to the user with the calls that did not run, and audited', async () => {
    const planner = new ScriptedPlanner([
      {
        type: 'tool_calls',
        text: '',
        calls: [{ id: 'c2', tool: 'echo', input: { id: 'loop', text: 'again' } }],
      },
    ]);
    const agent = await agentWith(planner, 3);
    const r = await agent.chat({ message: 'loop forever' }, { actor: 'ops' });
    expect(r.capped).toBe(true);
    expect(r.iterations).toBe(3);
    // rounds 1 and 2 ran their call; the call asked for in round 3 did not run
    expect(r.tool_calls).toHaveLength(2);
    expect(r.reply).toMatch(/stopped after 3 planning rounds/);
    expect(r.reply).toContain('These calls did not run:\n- echo {"id":"loop","text":"again"}');
    const row = chatRows()[0];
    expect(row?.outcome).toBe('error');
    expect(row?.payload).toMatchObject({ capped: true, iterations: 3 });
    expect(audit.query({ types: ['llm.called'] })).toHaveLength(3);
  });

  test('a planner call the brain refuses is reported to the planner, not thrown', async () => {
    const planner = new ScriptedPlanner([
      {
        type: 'tool_calls',
        text: '',
        calls: [{ id: 'c3', tool: 'web_search', input: { query: 'x' } }],
      },
      { type: 'reply', text: 'I may not search.' },
    ]);
    const agent = await agentWith(planner);
    const r = await agent.chat({ message: 'search for x please' }, { actor: 'ops' });
    // "search for …" is a local intent: the intent, not the planner, answers it
    expect(r.planner).toBe('intent');
    expect(r.tool_calls[0]).toMatchObject({ tool: 'web_search', outcome: 'denied' });
    const viaPlanner = await agent.chat({ message: 'could you look into x' }, { actor: 'ops' });
    // no web_search worker runs here: the name is not a tool the brain knows, and a model's
    // call to it is refused before the policy (ADR 0065); either way the planner hears why
    expect(viaPlanner.tool_calls[0]).toMatchObject({
      tool: 'web_search',
      outcome: 'failed',
      error: { code: 'unknown_tool' },
    });
    expect(viaPlanner.reply).toBe('I may not search.');
  });

  test('a session belongs to the token that made it', async () => {
    const agent = await agentWith();
    const r = await agent.chat({ message: 'what is 1 + 1' }, { actor: 'ops' });
    await expect(
      agent.chat({ message: 'what is 2 + 2', session_id: r.session_id }, { actor: 'intruder' }),
    ).rejects.toMatchObject({ code: 'session_not_found' });
    const again = await agent.chat(
      { message: 'what is 2 + 2', session_id: r.session_id },
      { actor: 'ops' },
    );
    expect(again.session_id).toBe(r.session_id);
    expect(
      conversations.history({ actor: 'ops', id: r.session_id }).filter((t) => t.role === 'user'),
    ).toHaveLength(2);
  });
});
