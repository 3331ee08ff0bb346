import { z } from 'zod';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { AuditLog } from '../../../src/audit/index.js';
import { Agent, type PlannerTool } from '../../../src/brain/agent/index.js';
import type { Planner } from '../../../src/brain/agent/ports.js';
import type { ChatEvent } from '../../../src/brain/api/index.js';
import type { ConversationStore } from '../../../src/brain/conversations/store.js';
import type { ToolGateway } from '../../../src/brain/gateway/index.js';
import { loadIntents } from '../../../src/brain/intents/index.js';
import { SHIPPED_INTENTS_FILE } from '../../../src/config/shipped.js';
import { defineTool } from '../../../src/legion/index.js';
import { createCalculatorTool } from '../../../workers/calculator/tool.js';

// a warm thread: the deadlines here time the call, not a cold mathjs start (ADR 0048)
const calculatorTool = createCalculatorTool({ warmThreads: 1 });
import { createEchoTool } from '../../fixtures/tools.js';
import { startBrainStack, type BrainParts, type BrainStack } from '../../helpers/brain-parts.js';
import { ScriptedPlanner } from '../../helpers/scripted-planner.js';

/**
 * The planner loop against real parts (NATS, workers, policy file, audit log, conversations),
 * with a scripted planner in place of a model: parallel calls, a denied call, malformed
 * arguments, a confirmation that pauses the turn and resumes it, a model that cannot be
 * reached, events for streaming, and what each round leaves in the audit log.
 */

/**
 * Answers only once `expected` calls are in flight at the same time: proof that a round's
 * calls run at once (run one after the other, the first would wait until its deadline).
 */
function barrierTool(expected: number) {
  let waiting: (() => void)[] = [];
  return defineTool({
    name: 'barrier',
    version: '1.0.0',
    description: 'Test tool: answers once enough calls wait together.',
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    executionLocality: 'local',
    resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
    input: z.strictObject({ id: z.string() }),
    output: z.object({ id: z.string(), together: z.number() }),
    timeoutMs: 5000,
    handler: (input, ctx) =>
      new Promise((resolve, reject) => {
        const release = () => resolve({ id: input.id, together: expected });
        waiting.push(release);
        ctx.signal.addEventListener('abort', () => reject(new Error('not together')));
        if (waiting.length >= expected) {
          const all = waiting;
          waiting = [];
          for (const r of all) r();
        }
      }),
  });
}

const POLICY = `version: 1
allowed_tools:
  - calculator
  - echo
  - barrier
  - tool: slow_echo
    confirm: true
`;

let parts: BrainParts;
let audit: AuditLog;
let gateway: ToolGateway;
let conversations: ConversationStore;
let registry: BrainParts['registry'];

let stack: BrainStack;

// One nats-server and worker for the file; each test gets a fresh audit log, conversation
// store, policy file and gateway on it (issue 30: the stack per test cost 51 s).
beforeAll(async () => {
  stack = await startBrainStack({
    policy: POLICY,
    tools: [
      calculatorTool,
      createEchoTool(),
      createEchoTool({ name: 'slow_echo' }),
      barrierTool(2),
    ],
  });
});

afterAll(() => stack?.close());

beforeEach(async () => {
  parts = await stack.parts();
  ({ audit, gateway, conversations, registry } = parts);
});

afterEach(() => parts?.close());

const OFFERED: PlannerTool[] = [
  { name: 'echo', description: 'echo', inputSchema: { type: 'object' } },
  { name: 'barrier', description: 'barrier', inputSchema: { type: 'object' } },
];

async function agentWith(planner: Planner, extra: { preferLocal?: boolean } = {}) {
  return new Agent({
    gate: gateway,
    intents: await loadIntents(SHIPPED_INTENTS_FILE),
    conversations,
    audit,
    planner,
    plannerTools: () => OFFERED,
    specOf: (tool) => registry.tool(tool)?.spec ?? null,
    maxIterations: 4,
    timeZone: 'UTC',
    ...extra,
  });
}

const rows = (type: string) => audit.query({ types: [type as 'tool.called'], order: 'oldest' });

describe('planner rounds', () => {
  test("a client that leaves while a round's calls run: no round is asked after, the turn ends cancelled", async () => {
    const left = new AbortController();
    const planner = new ScriptedPlanner([
      () => {
        left.abort(new Error('the client closed the connection'));
        return {
          type: 'tool_calls',
          text: '',
          calls: [{ id: 'call_e', tool: 'echo', input: { id: 'e', text: 'hi' } }],
        };
      },
      { type: 'reply', text: 'an answer for nobody' },
    ]);
    const agent = await agentWith(planner);
    const r = await agent.chat(
      { message: 'echo hi, then go on' },
      { actor: 'ops' },
      {
        signal: left.signal,
      },
    );
    expect(planner.requests).toHaveLength(1);
    // the call that was under way ran and is on the record
    expect(r.tool_calls.map((c) => [c.tool, c.outcome])).toEqual([['echo', 'ok']]);
    const [row] = rows('chat.completed');
    expect(row).toMatchObject({ outcome: 'error', payload: { cancelled: true, iterations: 1 } });
    // the conversation holds what happened, and no answer the client never got
    expect(conversations.history({ actor: 'ops', id: r.session_id }).map((t) => t.role)).toEqual([
      'user',
      'tool',
    ]);
  });

  test("a round's calls run at once, each through the gate with its own decision id", async () => {
    const planner = new ScriptedPlanner([
      {
        type: 'tool_calls',
        text: 'Checking both.',
        calls: [
          { id: 'call_a', tool: 'barrier', input: { id: 'a' } },
          { id: 'call_b', tool: 'barrier', input: { id: 'b' } },
        ],
      },
      { type: 'reply', text: 'Both answered.' },
    ]);
    const agent = await agentWith(planner);
    const r = await agent.chat({ message: 'check a and b' }, { actor: 'ops' });
    expect(r.reply).toBe('Both answered.');
    expect(r.tool_calls.map((c) => [c.tool, c.outcome])).toEqual([
      ['barrier', 'ok'],
      ['barrier', 'ok'],
    ]);
    expect(new Set(r.tool_calls.map((c) => c.decision_id)).size).toBe(2);
    // the second round sees the round's words, then both results under the model's call ids
    const history = planner.requests[1]!.history;
    expect(history.map((t) => [t.role, t.tool?.call_id])).toEqual([
      ['user', undefined],
      ['assistant', undefined],
      ['tool', 'call_a'],
      ['tool', 'call_b'],
    ]);
    expect(history[1]?.content).toBe('Checking both.');
  });

  test('a tool name the model invented is refused before the policy and the audit `tool` column see it; the others still run', async () => {
    const planner = new ScriptedPlanner([
      {
        type: 'tool_calls',
        text: '',
        calls: [
          { id: 'c1', tool: 'echo', input: { id: 'e1', text: 'hi' } },
          { id: 'c2', tool: 'shell', input: { command: 'rm -rf /' } },
        ],
      },
      { type: 'reply', text: 'Echoed; shell is not allowed.' },
    ]);
    const agent = await agentWith(planner);
    const r = await agent.chat({ message: 'echo and run a shell' }, { actor: 'ops' });
    expect(r.tool_calls.map((c) => [c.tool, c.outcome, c.error?.code])).toEqual([
      ['echo', 'ok', undefined],
      ['shell', 'failed', 'unknown_tool'],
    ]);
    // nothing about `shell` reached the policy or a row's tool column
    expect(rows('tool.denied')).toEqual([]);
    expect(audit.query({ tool: 'shell' })).toEqual([]);
    const round = rows('llm.called')[0]!;
    expect(round.payload).toMatchObject({
      tool_calls: 2,
      refused_calls: { refused: { unknown_tool: 1 }, invented: ['shell'] },
    });
    const shellTurn = planner.requests[1]!.history.find((t) => t.tool?.call_id === 'c2');
    expect(shellTurn?.tool).toMatchObject({ outcome: 'failed', error: { code: 'unknown_tool' } });
    expect(String((shellTurn?.tool?.error as { message: string }).message)).toMatch(
      /no tool named "shell" is offered to you.*echo, barrier/,
    );
  });

  test('arguments that do not parse become a tool error the model corrects next round', async () => {
    const planner = new ScriptedPlanner([
      {
        type: 'tool_calls',
        text: '',
        calls: [{ id: 'bad', tool: 'echo', problem: 'not JSON: {"id": "x", text' }],
      },
      {
        type: 'tool_calls',
        text: '',
        calls: [{ id: 'good', tool: 'echo', input: { id: 'x', text: 'fixed' } }],
      },
      { type: 'reply', text: 'fixed it' },
    ]);
    const agent = await agentWith(planner);
    const r = await agent.chat({ message: 'echo please' }, { actor: 'ops' });
    expect(r.reply).toBe('fixed it');
    expect(r.tool_calls.map((c) => [c.outcome, c.error?.code])).toEqual([
      ['failed', 'invalid_input'],
      ['ok', undefined],
    ]);
    const bad = planner.requests[1]!.history.find((t) => t.tool?.call_id === 'bad');
    expect(bad?.tool?.error).toMatchObject({ code: 'invalid_input' });
    // never dispatched: only the corrected call has audit rows
    expect(rows('tool.called')).toHaveLength(1);
  });

  test('input that breaks the tool schema comes back with field paths', async () => {
    const planner = new ScriptedPlanner([
      { type: 'tool_calls', text: '', calls: [{ id: 'c', tool: 'echo', input: { txt: 'x' } }] },
      { type: 'reply', text: 'ok' },
    ]);
    const agent = await agentWith(planner);
    const r = await agent.chat({ message: 'echo please' }, { actor: 'ops' });
    expect(r.tool_calls[0]?.error?.code).toBe('invalid_input');
    expect(r.tool_calls[0]?.error?.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'id' })]),
    );
  });

  test('each round is audited as llm.called with the model, tokens and attempts', async () => {
    const round = {
      provider: 'openai',
      model: 'gpt-test',
      inputTokens: 120,
      outputTokens: 8,
      durationMs: 42,
      attempts: [
        {
          provider: 'openai',
          model: 'gpt-test',
          outcome: 'rate_limited',
          status: 429,
          durationMs: 3,
        },
        { provider: 'openai', model: 'gpt-test', outcome: 'ok', durationMs: 39 },
      ],
    };
    const planner = new ScriptedPlanner([{ type: 'reply', text: 'hello', round }]);
    const agent = await agentWith(planner);
    const r = await agent.chat({ message: 'hi there' }, { actor: 'ops' });
    const [row] = rows('llm.called');
    expect(row).toMatchObject({ sessionId: r.session_id, actor: 'ops', outcome: 'ok' });
    expect(row?.payload).toEqual({
      iteration: 1,
      provider: 'openai',
      model: 'gpt-test',
      usage: { input: 120, output: 8 },
      duration_ms: 42,
      tool_calls: 0,
      attempts: [
        {
          provider: 'openai',
          model: 'gpt-test',
          outcome: 'rate_limited',
          status: 429,
          duration_ms: 3,
        },
        { provider: 'openai', model: 'gpt-test', outcome: 'ok', duration_ms: 39 },
      ],
    });
  });

  test('no model reachable: the reply says so and what was tried, and it is audited', async () => {
    const tried = 'openai (gpt at 127.0.0.1:1) connection refused';
    const agent = await agentWith(new ScriptedPlanner([{ unavailable: tried }]));
    const r = await agent.chat({ message: 'hello there' }, { actor: 'ops' });
    expect(r.reply).toMatch(
      /^I couldn't get an answer from a language model: no model could be reached: openai \(gpt at 127\.0\.0\.1:1\) connection refused\.\n/,
    );
    expect(r.reply).toMatch(
      /Without it I can still answer, for example: 'what's on my calendar today'/,
    );
    expect(r.reply).toMatch(/`\/help setup` in `caesar chat`, or the Tools panel/);
    expect(rows('llm.called')[0]).toMatchObject({ outcome: 'error' });
  });

  test('events tell a stream the calls and the text, in order', async () => {
    const planner = new ScriptedPlanner([
      (req) => {
        req.onText?.('Let me ');
        req.onText?.('check.');
        return {
          type: 'tool_calls',
          text: 'Let me check.',
          calls: [{ id: 'c9', tool: 'echo', input: { id: 'ev', text: 'x' } }],
        };
      },
      (req) => {
        req.onText?.('Done.');
        return { type: 'reply', text: 'Done.' };
      },
    ]);
    const agent = await agentWith(planner);
    const events: ChatEvent[] = [];
    await agent.chat({ message: 'echo x' }, { actor: 'ops' }, { onEvent: (e) => events.push(e) });
    expect(
      events.map((e) =>
        e.type === 'text' ? `text:${e.delta}` : `${e.type}:${'call_id' in e ? e.call_id : ''}`,
      ),
    ).toEqual(['text:Let me ', 'text:check.', 'tool_call:c9', 'tool_result:c9', 'text:Done.']);
  });

  test('with prefer_local off every message goes to the planner', async () => {
    const planner = new ScriptedPlanner([{ type: 'reply', text: 'the model answered' }]);
    const local = await agentWith(planner);
    expect((await local.chat({ message: 'what is 17 * 23' }, { actor: 'ops' })).reply).toBe(
      '17 * 23 = 391',
    );
    const remote = await agentWith(planner, { preferLocal: false });
    const r = await remote.chat({ message: 'what is 17 * 23' }, { actor: 'ops' });
    expect(r).toMatchObject({ reply: 'the model answered', planner: 'llm' });
  });

  test('a seeded session starts with the turns the client kept', async () => {
    const planner = new ScriptedPlanner([{ type: 'reply', text: 'ok' }]);
    const agent = await agentWith(planner);
    await agent.chat(
      { message: 'and now?' },
      { actor: 'ops' },
      {
        seed: [
          { role: 'user', content: 'first' },
          { role: 'assistant', content: 'answer' },
        ],
      },
    );
    expect(planner.requests[0]!.history.map((t) => [t.role, t.content])).toEqual([
      ['user', 'first'],
      ['assistant', 'answer'],
      ['user', 'and now?'],
    ]);
  });
});

describe('a confirmation inside a planner turn', () => {
  test('pauses the turn, and approving it runs the call and lets the model go on', async () => {
    const planner = new ScriptedPlanner([
      {
        type: 'tool_calls',
        text: '',
        calls: [{ id: 'call_s', tool: 'slow_echo', input: { id: 's1', text: 'careful' } }],
      },
      { type: 'reply', text: 'It ran: careful.' },
    ]);
    const agent = await agentWith(planner);
    const first = await agent.chat({ message: 'do the careful thing' }, { actor: 'ops' });
    const ticket = first.tool_calls[0]?.confirmation;
    expect(first.tool_calls[0]?.outcome).toBe('confirmation_required');
    expect(first.reply).toMatch(/^This needs your approval: .*caesar confirm /);
    // the approval request is not kept as the model's own words
    expect(
      conversations.history({ actor: 'ops', id: first.session_id }).map((t) => t.role),
    ).toEqual(['user', 'tool']);

    const report = await gateway.confirm(ticket!.id, true, { actor: 'approver' });
    expect(report.outcome).toBe('ok');
    const resumed = await agent.resume(ticket!.id, report);
    // the rest of the turn is the owner's, whoever approved
    expect(resumed?.owner).toBe('ops');
    expect(resumed?.response).toMatchObject({
      session_id: first.session_id,
      reply: 'It ran: careful.',
      planner: 'llm',
      iterations: 2,
    });
    // the model saw the call answered under its own id, once
    const seen = planner.requests[1]!.history.filter((t) => t.tool?.call_id === 'call_s');
    expect(seen.map((t) => t.tool?.outcome)).toEqual(['confirmation_required', 'ok']);
    expect(await agent.resume(ticket!.id, report)).toBeUndefined();
  });

  test('a rejection goes back to the model too', async () => {
    const planner = new ScriptedPlanner([
      {
        type: 'tool_calls',
        text: '',
        calls: [{ id: 'call_r', tool: 'slow_echo', input: { id: 'r1' } }],
      },
      (req) => {
        const last = req.history.at(-1);
        return { type: 'reply', text: `seen: ${last?.tool?.outcome}` };
      },
    ]);
    const agent = await agentWith(planner);
    const first = await agent.chat({ message: 'do it' }, { actor: 'ops' });
    const id = first.tool_calls[0]!.confirmation!.id;
    const report = await gateway.confirm(id, false, { actor: 'approver' });
    expect((await agent.resume(id, report))?.response.reply).toBe('seen: rejected');
  });
});
