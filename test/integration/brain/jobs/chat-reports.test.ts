import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../../src/brain/agent/index.js';
import type { PlanRequest, PlanStep } from '../../../../src/brain/agent/ports.js';
import { JobReports } from '../../../../src/brain/capabilities/job-reports.js';
import { JobStatusGate } from '../../../../src/brain/capabilities/job-status.js';
import { openConversationStore } from '../../../../src/brain/conversations/index.js';
import type { ConversationStore } from '../../../../src/brain/conversations/store.js';
import { loadIntents } from '../../../../src/brain/intents/index.js';
import { SHIPPED_INTENTS_FILE } from '../../../../src/config/shipped.js';
import { defineTool, serveTools, type ToolWorker } from '../../../../src/legion/index.js';
import { createSlowJob } from '../../../fixtures/job-tools.js';
import { jobReaches, startJobBrain, type JobBrain } from '../../../helpers/jobs.js';
import { ScriptedPlanner } from '../../../helpers/scripted-planner.js';

/**
 * ADR 0100: a job a chat turn started is reported, when it has ended, at the start of the
 * next turn of that conversation, and only there; the report is the job's tool output, so
 * the turn that reads it is tainted as if it had called the tool. Real nats-server with
 * JetStream, real workers, a real audit log and conversation store; the model is scripted.
 */

/** A tool that changes state: after untrusted content a model's call to it waits for a human. */
const door = defineTool({
  name: 'door',
  version: '1.0.0',
  description: 'Test tool: unlocks the front door.',
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  executionLocality: 'local',
  resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
  input: z.strictObject({ action: z.enum(['unlock']) }),
  output: z.object({ done: z.boolean() }),
  timeoutMs: 5000,
  handler: () => Promise.resolve({ done: true }),
});

const POLICY = `version: 1
allowed_tools:
  - tool: backup
  - tool: quick_job
  - tool: door
flow:
  after_untrusted: confirm
`;

const ops = { actor: 'token:ops' };
const tablet = { actor: 'token:tablet' };

const callStep = (tool: string, input: unknown): PlanStep => ({
  type: 'tool_calls',
  text: '',
  calls: [{ id: `call_${tool}_${Math.random().toString(36).slice(2, 8)}`, tool, input }],
});

/**
 * The model: a message naming a job tool and an id starts that job; "unlock" asks for the
 * door; a round after a call's result, and anything else, is answered in words.
 */
function model(request: PlanRequest): PlanStep {
  const last = request.history.at(-1);
  if (last?.role !== 'user') return { type: 'reply', text: 'done.' };
  const job = /^(backup|quick_job) (\S+)$/.exec(last.content);
  if (job) return callStep(job[1]!, { id: job[2]!, seconds: 0.2, tick_ms: 50 });
  if (last.content === 'unlock') return callStep('door', { action: 'unlock' });
  return { type: 'reply', text: 'hello.' };
}

describe('a job started from chat reports its end in that chat (ADR 0100)', () => {
  let brain: JobBrain;
  let worker: ToolWorker;
  let dir: string;
  let conversations: ConversationStore;
  let agent: Agent;
  const planner = new ScriptedPlanner([model]);

  beforeAll(async () => {
    brain = await startJobBrain({ policy: POLICY });
    const nc = await brain.nats.connect();
    worker = await serveTools(
      [
        // a backup reads what it backs up: its output is not the operator's words
        createSlowJob({ name: 'backup', outputTrust: 'untrusted', failId: 'broken' }),
        createSlowJob({ name: 'quick_job' }),
        door,
      ],
      { nc, host: 'h1', jobs: { heartbeatMs: 300, pullWaitMs: 1000 } },
    );
    await Promise.all(['backup', 'quick_job', 'door'].map((t) => brain.learn(t)));
    dir = mkdtempSync(join(tmpdir(), 'caesar-job-chat-'));
    conversations = openConversationStore({
      file: join(dir, 'conversations.db'),
      historyLimit: 50,
    });
    agent = await makeAgent();
  }, 60_000);

  afterAll(async () => {
    await worker?.stop().catch(() => undefined);
    conversations?.close();
    await brain?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The agent over the brain's parts as they are now (a restart replaces them). */
  async function makeAgent(): Promise<Agent> {
    const specOf = (tool: string) => brain.registry.tool(tool)?.spec ?? null;
    const tools = ['backup', 'quick_job', 'door'].map((name) => ({
      name,
      description: name,
      inputSchema: { type: 'object' },
    }));
    return new Agent({
      gate: new JobStatusGate(brain.gateway, { job: (id) => brain.queue.view(id), specOf }),
      intents: await loadIntents(SHIPPED_INTENTS_FILE),
      conversations,
      audit: brain.audit,
      planner,
      plannerTools: () => tools,
      specOf,
      preferLocal: false,
      timeZone: 'UTC',
      jobReports: new JobReports({
        audit: brain.audit,
        job: (id) => brain.queue.view(id),
        conversations,
        specOf,
      }),
    });
  }

  /** Starts a job from chat; its id, once the job has `status`. */
  async function startJob(
    caller: { actor: string },
    session: string,
    message: string,
    status: 'running' | 'finished' | 'failed',
  ) {
    const started = await agent.chat(
      { message, session_id: session, create_session: true },
      caller,
    );
    const call = started.tool_calls[0]!;
    expect(call.outcome, call.reason).toBe('ok');
    expect(call.job?.job_id).toBe(call.decision_id);
    // the submission promises only what is delivered
    expect(JSON.stringify(call.result)).toContain(
      'the next message in this conversation opens with how it ended',
    );
    await jobReaches(brain, call.decision_id, status);
    return call.decision_id;
  }

  it("the next turn opens with the end, reads it as the tool's output, and a state-changing call then waits for a human", async () => {
    const id = await startJob(ops, 'kitchen', 'backup nightly', 'finished');
    const asked = planner.requests.length;
    const next = await agent.chat({ message: 'unlock', session_id: 'kitchen' }, ops);
    expect(
      next.reply.startsWith(`job ${id} (backup) finished: {"id":"nightly","ticks":4}\n\n`),
    ).toBe(true);
    // the model read the end as job_status's answer, before the operator's message
    const history = planner.requests[asked]!.history;
    const report = history.at(-2)?.tool;
    expect(report).toMatchObject({ name: 'job_status', decision_id: id, outcome: 'ok' });
    expect(report?.label?.trust).toBe('untrusted');
    // the flow rule holds: after untrusted content, the door waits for a human
    const unlock = next.tool_calls.find((c) => c.tool === 'door');
    expect(unlock?.outcome, unlock?.reason).toBe('confirmation_required');
    expect(unlock?.reason).toMatch(/untrusted/);
    // and the row that holds it says what the model had read: this job's end
    const held = brain.audit.query({
      types: ['tool.confirmation_requested'],
      decisionId: unlock!.decision_id,
    });
    expect(JSON.stringify(held.map((r) => r.payload))).toContain(id);
    // told once: the turn after it does not repeat it
    const again = await agent.chat({ message: 'hi', session_id: 'kitchen' }, ops);
    expect(again.reply).toBe('hello.');
  }, 60_000);

  it("a trusted job's end does not gate the call after it: the taint is the tool's own", async () => {
    const id = await startJob(ops, 'garage', 'quick_job q1', 'finished');
    const next = await agent.chat({ message: 'unlock', session_id: 'garage' }, ops);
    expect(next.reply.startsWith(`job ${id} (quick_job) finished`)).toBe(true);
    const unlock = next.tool_calls.find((c) => c.tool === 'door');
    expect(unlock?.outcome, unlock?.reason).toBe('ok');
  }, 60_000);

  it("another principal's conversation, even under the same name, never sees the report", async () => {
    const id = await startJob(ops, 'hall', 'backup secret-plans', 'finished');
    const asked = planner.requests.length;
    const theirs = await agent.chat(
      { message: 'hi', session_id: 'hall', create_session: true },
      tablet,
    );
    expect(theirs.reply).toBe('hello.');
    const seen = JSON.stringify(planner.requests.slice(asked).map((r) => r.history));
    expect(seen).not.toContain(id);
    expect(seen).not.toContain('secret-plans');
    // the owner still gets it
    const mine = await agent.chat({ message: 'hi', session_id: 'hall' }, ops);
    expect(mine.reply.startsWith(`job ${id} (backup) finished`)).toBe(true);
  }, 60_000);

  it('a failed job reports its error code', async () => {
    const id = await startJob(ops, 'cellar', 'backup broken', 'failed');
    const next = await agent.chat({ message: 'hi', session_id: 'cellar' }, ops);
    expect(next.reply).toMatch(
      new RegExp(`^job ${id} \\(backup\\) failed: backend_error: [^\\n]*the backup target refused`),
    );
  }, 60_000);

  it('a job running while the brain restarts is reported after it, from the audit log and the event stream', async () => {
    const started = await agent.chat(
      { message: 'backup across-restart', session_id: 'attic', create_session: true },
      ops,
    );
    const id = started.tool_calls[0]!.decision_id;
    // whether the job ends before, during or after the restart, its end is told once
    await brain.restart();
    agent = await makeAgent();
    await jobReaches(brain, id, 'finished', 40_000);
    const next = await agent.chat({ message: 'hi', session_id: 'attic' }, ops);
    expect(next.reply.startsWith(`job ${id} (backup) finished`)).toBe(true);
  }, 60_000);

  it("a client-kept conversation (chat completions) gets the end with the token's next reply", async () => {
    const webui = { actor: 'token:webui' };
    const first = await agent.chat({ message: 'backup from-webui' }, webui, { seed: [] });
    expect(first.session_id.startsWith('client.')).toBe(true);
    const call = first.tool_calls[0]!;
    expect(call.outcome, call.reason).toBe('ok');
    expect(JSON.stringify(call.result)).toContain('the next message in this conversation');
    await jobReaches(brain, call.decision_id, 'finished');
    const seed = [
      { role: 'user' as const, content: 'backup from-webui' },
      { role: 'assistant' as const, content: first.reply },
    ];
    const next = await agent.chat({ message: 'hi' }, webui, { seed });
    expect(next.reply.startsWith(`job ${call.decision_id} (backup) finished`)).toBe(true);
    const again = await agent.chat({ message: 'hi' }, webui, { seed });
    expect(again.reply).toBe('hello.');
  }, 60_000);
});
