/**
 * The brain's own cost per planner round: one chat turn through the agent loop with the
 * real LLM planner (OpenAI chat completions, streamed), the real gate (policy, durable audit
 * rows, NATS dispatch) and conversations, against a loopback model that answers at once:
 * round 1 asks for one tool call, round 2 replies. The baseline is the same work without
 * the brain: the two model requests replayed by a bare undici client and the one tool call
 * dispatched directly by the SDK dispatcher. Turns and baselines alternate one by one.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/run.js planner
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent as HttpAgent, request } from 'undici';
import { z } from 'zod';
import { openAuditLog } from '../src/audit/index.js';
import { Agent } from '../src/brain/agent/index.js';
import { openConversationStore } from '../src/brain/conversations/index.js';
import { createDispatcher } from '../src/brain/dispatch/index.js';
import { ToolGateway } from '../src/brain/gateway/index.js';
import { parseIntents } from '../src/brain/intents/index.js';
import { createPlanner } from '../src/brain/llm/index.js';
import { startRegistry } from '../src/brain/registry/index.js';
import { connectBus, startNatsServer } from '../src/bus/index.js';
import { loadConfig } from '../src/config/index.js';
import { defineTool, serveTools } from '../src/legion/index.js';
import { silentLogger } from '../src/log/index.js';
import { openPolicyStore } from '../src/policy/index.js';
import { benchSize, percentile, type BenchContext } from './harness.js';

const WARMUP = benchSize(150, 5);
const TURNS = benchSize(600, 10);
const TOOL = 'bench_echo';

const echoTool = defineTool({
  name: TOOL,
  version: '1.0.0',
  description: 'Benchmark echo: returns its text.',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  executionLocality: 'local',
  resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
  input: z.strictObject({ text: z.string() }),
  output: z.object({ text: z.string() }),
  maxConcurrency: 64,
  handler: (input) => ({ text: input.text }),
});

const chunk = (delta: object, finish: string | null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'bench',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })}\n\n`;

const usage = `data: ${JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'bench',
  choices: [],
  usage: { prompt_tokens: 200, completion_tokens: 10, total_tokens: 210 },
})}\n\n`;

/** Round 1 (no tool result yet): one tool call. Round 2: a short reply. Streamed, at once. */
function instantModel(): Promise<{ server: Server; url: string }> {
  let callNo = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        messages: { role: string }[];
      };
      const answered = body.messages.at(-1)?.role === 'tool';
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (answered) {
        res.write(chunk({ role: 'assistant', content: 'Echoed.' }, null));
        res.write(chunk({}, 'stop'));
      } else {
        callNo += 1;
        const call = {
          index: 0,
          id: `call_${callNo}`,
          type: 'function',
          function: { name: TOOL, arguments: '{"text":"hello"}' },
        };
        res.write(chunk({ role: 'assistant', tool_calls: [call] }, null));
        res.write(chunk({}, 'tool_calls'));
      }
      res.end(`${usage}data: [DONE]\n\n`);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

export async function run(ctx: BenchContext): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'caesar-bench-planner-'));
  await using nats = await startNatsServer();
  const model = await instantModel();
  const ncBrain = await connectBus({ servers: nats.url, name: 'bench-brain' });
  const ncWorker = await connectBus({ servers: nats.url, name: 'bench-worker' });
  const http = new HttpAgent({ connections: 4 });
  try {
    await writeFile(join(dir, 'policy.yaml'), `version: 1\nallowed_tools:\n  - ${TOOL}\n`);
    const worker = await serveTools([echoTool], { nc: ncWorker, host: 'bench' });
    const audit = openAuditLog({ path: join(dir, 'audit.db') });
    const policy = await openPolicyStore({ path: join(dir, 'policy.yaml'), reloadSignal: null });
    const registry = await startRegistry({ nc: ncBrain });
    while (registry.tool(TOOL) === undefined) await new Promise((r) => setTimeout(r, 20));
    const dispatcher = createDispatcher({ nc: ncBrain });
    const gate = new ToolGateway({
      tools: registry,
      policy,
      audit,
      dispatcher,
      callTimeoutMs: 10_000,
      confirmationTtlMs: 60_000,
    });
    const conversations = openConversationStore({
      file: join(dir, 'conv.db'),
      historyLimit: 40,
    });
    const config = await loadConfig({
      env: {
        CAESAR_LLM__PROVIDER: 'openai',
        CAESAR_LLM__MODEL: 'bench',
        CAESAR_LLM__OPENAI__BASE_URL: `${model.url}/v1`,
      },
      cwd: dir,
    });
    const planner = createPlanner(config.llm, { logger: silentLogger() })!;
    const spec = registry.tool(TOOL)!.spec;
    const agent = new Agent({
      gate,
      intents: parseIntents('version: 1\nintents: []\n', 'none.yaml'),
      conversations,
      audit,
      planner,
      plannerTools: () => [
        { name: TOOL, description: spec.description, inputSchema: spec.input_schema },
      ],
      timeZone: 'UTC',
    });

    const turn = async () => {
      const r = await agent.chat({ message: 'please echo hello' }, { actor: 'bench' });
      if (r.tool_calls[0]?.outcome !== 'ok') throw new Error(`bench turn failed: ${r.reply}`);
    };
    // the same work without the brain: two model requests and one direct dispatch
    const modelRequest = async (messages: object[]) => {
      const res = await request(`${model.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'bench', stream: true, messages }),
        dispatcher: http,
      });
      await res.body.text();
    };
    const baseline = async () => {
      await modelRequest([{ role: 'user', content: 'please echo hello' }]);
      const reply = await dispatcher.dispatch(
        TOOL,
        { text: 'hello' },
        {
          decisionId: 'bench',
          deadline: Date.now() + 10_000,
        },
      );
      if (!reply.success) throw new Error('bench dispatch failed');
      await modelRequest([{ role: 'tool', content: 'x' }]);
    };

    for (let i = 0; i < WARMUP; i++) {
      await turn();
      await baseline();
    }
    const turns: number[] = [];
    const bases: number[] = [];
    for (let i = 0; i < TURNS; i++) {
      const order = i % 2 === 0 ? [turn, baseline] : [baseline, turn];
      for (const fn of order) {
        const t = performance.now();
        await fn();
        (fn === turn ? turns : bases).push((performance.now() - t) * 1000);
      }
    }
    const t50 = percentile(turns, 50);
    const b50 = percentile(bases, 50);
    ctx.section(
      `Planner: one chat turn (2 model rounds, 1 tool call) through the agent, gate and audit log vs the same model requests and dispatch without the brain, instant loopback model, p50 of ${TURNS} alternating turns`,
    );
    ctx.figure('model requests + direct dispatch, p50', b50, 'us');
    ctx.figure('chat turn through the brain, p50', t50, 'us', { baseline: b50 });
    ctx.figure("brain's own overhead per planner round, p50", (t50 - b50) / 2, 'us');
    ctx.figure('chat turn through the brain, p90', percentile(turns, 90), 'us');

    gate.close();
    conversations.close();
    await worker.stop();
    await registry.close();
    policy.close();
    await audit.close();
  } finally {
    await http.close();
    await ncBrain.close();
    await ncWorker.close();
    await new Promise<void>((r) => model.server.close(() => r()));
    await rm(dir, { recursive: true, force: true });
  }
}
