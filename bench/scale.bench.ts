/**
 * Cost as work grows (issue 13, target 7): each figure at three sizes, with its cost per
 * unit of size printed as a ratio to the smallest size, so growth faster than linear shows
 * as a per-unit ratio above 1.
 *
 * - registry: 2, 20 and 200 tools x 5 instances (serveTools in a child process, one NATS
 *   connection per instance): sweep time, and the brain's CPU per sweep (the registry runs
 *   in this process, which does nothing else meanwhile);
 * - audit log: 100 k, 1 M and 10 M rows (bench/scale-audit.ts; built once, cached);
 * - policy: 100, 1,000 and 10,000 rules: reload after a one-rule edit, decision rates;
 * - a conversation at its history cap (10, 100 and 1,000 turns, `brain.history_limit` allows
 *   up to 1,000): one turn's store work (read the history, append the user and the assistant
 *   message, trimming the oldest).
 *
 *   npm run bench -- scale        (about 5 minutes; the first run builds the 10 M-row log)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { openConversationStore } from '../src/brain/conversations/index.js';
import { startRegistry } from '../src/brain/registry/index.js';
import { connectBus, startNatsServer } from '../src/bus/index.js';
import { defineTool, serveTools } from '../src/legion/index.js';
import { silentLogger } from '../src/log/index.js';
import { openPolicyStore, PolicyEngine, type ToolCall } from '../src/policy/index.js';
import { benchSize, opsPerSecond, percentile, SMOKE, type BenchContext } from './harness.js';
import { CACHE_DIR, measureAuditAt } from './scale-audit.js';

const INSTANCES = benchSize(5, 2);
const TOOL_COUNTS = SMOKE ? [2, 4] : [2, 20, 200];
const SWEEPS = benchSize(5, 1);
const AUDIT_ROWS = SMOKE ? [1_000, 2_000] : [100_000, 1_000_000, 10_000_000];
const POLICY_RULES = SMOKE ? [10, 20] : [100, 1_000, 10_000];
const HISTORY_CAPS = SMOKE ? [10, 20] : [10, 100, 1_000];
const TURNS = benchSize(200, 10);

const median = (xs: number[]) => percentile([...xs], 50);
const fmt = (n: number) => n.toLocaleString('en-US');

/** Prints `perUnit` at each size with its ratio to the smallest size's. */
function curve(
  ctx: BenchContext,
  name: (size: number) => string,
  unit: string,
  points: Array<{ size: number; value: number }>,
): void {
  const first = points[0]?.value;
  for (const p of points) ctx.figure(name(p.size), p.value, unit, { baseline: first });
}

// ---------------------------------------------------------------- registry

function toolNamed(name: string) {
  return defineTool({
    name,
    version: '1.0.0',
    description: `Scale bench tool ${name}.`,
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    executionLocality: 'local',
    resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
    input: z.object({ text: z.string() }),
    output: z.object({ text: z.string() }),
    handler: (input) => ({ text: input.text }),
  });
}

/** Child-process side: `instances` instances of `tools` tools, one connection each. */
async function serveInstances(url: string, tools: number, instances: number): Promise<void> {
  const defs = Array.from({ length: tools }, (_, t) => toolNamed(`scale_t${t}`));
  const workers = [];
  for (let i = 0; i < instances; i++) {
    const nc = await connectBus({ servers: url, name: `bench-instance-${i}` });
    workers.push(await serveTools(defs, { nc, logger: silentLogger(), host: `host-${i}` }));
  }
  process.stdin.on('close', () => process.exit(0));
  process.stdin.resume();
  process.stdout.write('ready\n');
}

function startInstances(url: string, tools: number): Promise<ChildProcess> {
  const args = [fileURLToPath(import.meta.url), '--instances', url, `${tools}`, `${INSTANCES}`];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`instance child exited (${code})`)));
    createInterface({ input: child.stdout }).once('line', () => resolve(child));
  });
}

interface SweepFigures {
  instances: number;
  live: number;
  sweepMs: number;
  cpuMs: number;
  windowMs: number;
}

async function measureRegistry(url: string, tools: number): Promise<SweepFigures> {
  const child = await startInstances(url, tools);
  const nc = await connectBus({ servers: url, name: 'bench-registry' });
  try {
    // the timer never fires during the run: every sweep below is one this code asked for
    const windowMs = 1000;
    const registry = await startRegistry({ nc, sweepIntervalMs: 600_000, sweepWindowMs: windowMs });
    try {
      const times: number[] = [];
      const cpus: number[] = [];
      for (let i = 0; i < SWEEPS; i++) {
        const cpu0 = process.cpuUsage();
        const event = await registry.sweep();
        const cpu = process.cpuUsage(cpu0);
        times.push(event.durationMs);
        cpus.push((cpu.user + cpu.system) / 1000);
      }
      const live = registry.tools().reduce((n, t) => n + t.instances.length, 0);
      const instances = tools * INSTANCES;
      return { instances, live, sweepMs: median(times), cpuMs: median(cpus), windowMs };
    } finally {
      await registry.close();
    }
  } finally {
    await nc.close();
    child.stdin?.end();
    child.kill('SIGTERM');
  }
}

async function registrySection(ctx: BenchContext): Promise<void> {
  await using server = await startNatsServer();
  const runs: SweepFigures[] = [];
  for (const tools of TOOL_COUNTS) runs.push(await measureRegistry(server.url, tools));
  ctx.section(
    `Scale: registry sweeps, ${TOOL_COUNTS.join(' / ')} tools x ${INSTANCES} instances, median of ${SWEEPS}`,
  );
  for (const r of runs) {
    ctx.figure(`live instances after ${SWEEPS + 1} sweeps (of ${fmt(r.instances)})`, r.live, '');
    ctx.figure(
      `sweep time, ${fmt(r.instances)} instances (window ${r.windowMs} ms)`,
      r.sweepMs,
      'ms',
    );
  }
  curve(
    ctx,
    (n) => `sweep time past the window, per instance, ${fmt(n)}`,
    'ms',
    runs.map((r) => ({ size: r.instances, value: (r.sweepMs - r.windowMs) / r.instances })),
  );
  for (const r of runs)
    ctx.figure(`brain CPU per sweep, ${fmt(r.instances)} instances`, r.cpuMs, 'ms');
  curve(
    ctx,
    (n) => `brain CPU per sweep, per instance, ${fmt(n)}`,
    'us',
    runs.map((r) => ({ size: r.instances, value: (r.cpuMs * 1000) / r.instances })),
  );
}

// ---------------------------------------------------------------- audit

async function auditSection(ctx: BenchContext): Promise<void> {
  const progress = (line: string) => console.log(`  (${line})`);
  const runs = [];
  try {
    for (const rows of AUDIT_ROWS) runs.push(await measureAuditAt(rows, progress));
  } finally {
    // a smoke run's logs are its own, built to check the build still works: not kept
    if (SMOKE) await rm(CACHE_DIR, { recursive: true, force: true });
  }
  ctx.section(
    `Scale: audit log at ${AUDIT_ROWS.map(fmt).join(' / ')} rows (cached in ${CACHE_DIR})`,
  );
  for (const r of runs) {
    if (r.buildSeconds !== undefined) ctx.figure(`build, ${fmt(r.rows)} rows`, r.buildSeconds, 's');
    ctx.figure(`file size, ${fmt(r.rows)} rows`, r.fileBytes / 2 ** 20, 'MiB');
    ctx.figure(`open for append, ${fmt(r.rows)} rows`, r.openMs, 'ms');
    ctx.figure(`durable appends, 64 callers, ${fmt(r.rows)} rows`, r.appendsPerSecond, 'appends/s');
    ctx.figure(`verify, whole chain, ${fmt(r.rows)} rows`, r.verifyRowsPerSecond, 'rows/s');
  }
  curve(
    ctx,
    (n) => `durable append, 64 callers, ${fmt(n)} rows`,
    'us/append',
    runs.map((r) => ({ size: r.rows, value: 1e6 / r.appendsPerSecond })),
  );
  curve(
    ctx,
    (n) => `query by decision id p50, ${fmt(n)} rows`,
    'ms',
    runs.map((r) => ({ size: r.rows, value: r.lookupP50Ms })),
  );
  curve(
    ctx,
    (n) => `query newest 50 p50, ${fmt(n)} rows`,
    'ms',
    runs.map((r) => ({ size: r.rows, value: r.newestPageP50Ms })),
  );
  curve(
    ctx,
    (n) => `verify, whole chain, ${fmt(n)} rows`,
    'us/row',
    runs.map((r) => ({ size: r.rows, value: 1e6 / r.verifyRowsPerSecond })),
  );
  curve(
    ctx,
    (n) => `counts() per 1,000 rows, ${fmt(n)} rows`,
    'ms',
    runs.map((r) => ({ size: r.rows, value: (r.countsMs * 1000) / r.rows })),
  );
}

// ---------------------------------------------------------------- policy

/** `rules` rules: half tools (every other one constrained), 40 % services, 10 % denials. */
function policyOfRules(rules: number, revision = 0): string {
  const tools = rules / 2;
  const services = (rules * 4) / 10;
  const denied = rules / 20;
  const about = `    description: revision ${revision}`;
  const lines = ['version: 1', 'allowed_services:'];
  for (let s = 0; s < services; s++) {
    const ids = Array.from({ length: 5 }, (_, i) => `d${s % 45}.room_${i}`).join(', ');
    lines.push(
      `  - service: d${s % 45}.s${s}`,
      about,
      `    target: {entity_id: [${ids}, "d${s % 45}.hall_*"]}`,
      '    data:',
      '      brightness_pct: {min: 1, max: 80}',
    );
  }
  lines.push('denied_services:');
  for (let i = 0; i < denied; i++) {
    lines.push(`  - service: d${i % 45}.s${i}`, about, `    target: {entity_id: d${i % 45}.vault}`);
  }
  lines.push('allowed_tools:');
  for (let t = 0; t < tools; t++) {
    lines.push(`  - tool: tool_${t}`, about);
    if (t % 2 === 1) lines.push('    input: {query: {type: string, max_length: 200}}');
  }
  lines.push('denied_tools:');
  for (let t = 0; t < denied; t++) lines.push(`  - tool: banned_${t}`, about);
  return `${lines.join('\n')}\n`;
}

interface PolicyFigures {
  rules: number;
  reloadMs: number;
  bare: number;
  unlisted: number;
  service: number;
}

async function measurePolicy(dir: string, rules: number): Promise<PolicyFigures> {
  const file = join(dir, `policy-${rules}.yaml`);
  const text = policyOfRules(rules);
  await writeFile(file, text);
  using store = await openPolicyStore({
    path: file,
    watch: false,
    reloadSignal: null,
    maxFileBytes: 64 * 2 ** 20,
  });
  const reloads: number[] = [];
  for (let i = 0; i < 5; i++) {
    await writeFile(file, text.replace('max_length: 200', `max_length: ${300 + i}`));
    const t0 = performance.now();
    const event = await store.reload();
    reloads.push(performance.now() - t0);
    if (event.type !== 'policy.reloaded') throw new Error(`policy of ${rules} rules failed`);
  }
  const engine = new PolicyEngine(store.policy);
  const last = rules / 2 - 2; // an unconstrained tool near the end of the list
  const bareCall: ToolCall = { tool: `tool_${last}`, input: { expression: '17 * 23' } };
  const s = (rules * 4) / 10 - 1;
  const serviceCall = {
    domain: `d${s % 45}`,
    service: `s${s}`,
    target: { entity_id: [`d${s % 45}.room_2`, `d${s % 45}.hall_3`] },
    data: { brightness_pct: 40 },
  } as ToolCall;
  let sink = 0;
  const bare = opsPerSecond(() => void (engine.evaluate(bareCall).allowed && sink++), 300);
  const unlisted = opsPerSecond(
    () => void (engine.evaluate({ tool: 'not_listed', input: {} }).allowed || sink++),
    300,
  );
  const service = opsPerSecond(() => void (engine.evaluate(serviceCall).allowed && sink++), 300);
  if (sink === 0) throw new Error('the policy bench calls were not decided as expected');
  return { rules, reloadMs: median(reloads), bare, unlisted, service };
}

async function policySection(ctx: BenchContext): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'caesar-scale-policy-'));
  try {
    const runs: PolicyFigures[] = [];
    for (const rules of POLICY_RULES) runs.push(await measurePolicy(dir, rules));
    ctx.section(`Scale: policy at ${POLICY_RULES.map(fmt).join(' / ')} rules`);
    for (const r of runs)
      ctx.figure(`reload after a one-rule edit, ${fmt(r.rules)} rules`, r.reloadMs, 'ms');
    curve(
      ctx,
      (n) => `reload per 1,000 rules, ${fmt(n)} rules`,
      'ms',
      runs.map((r) => ({ size: r.rules, value: (r.reloadMs * 1000) / r.rules })),
    );
    curve(
      ctx,
      (n) => `evaluate: a bare tool near the end, ${fmt(n)} rules`,
      'ns/decision',
      runs.map((r) => ({ size: r.rules, value: 1e9 / r.bare })),
    );
    curve(
      ctx,
      (n) => `evaluate: unlisted tool (default deny), ${fmt(n)} rules`,
      'ns/decision',
      runs.map((r) => ({ size: r.rules, value: 1e9 / r.unlisted })),
    );
    curve(
      ctx,
      (n) => `evaluate: constrained service call, ${fmt(n)} rules`,
      'ns/decision',
      runs.map((r) => ({ size: r.rules, value: 1e9 / r.service })),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- conversations

async function conversationSection(ctx: BenchContext): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'caesar-scale-conv-'));
  const text = 'What is the weather like in the kitchen right now? '.repeat(4);
  try {
    const points: Array<{ size: number; value: number }> = [];
    for (const cap of HISTORY_CAPS) {
      using store = openConversationStore({ file: join(dir, `c-${cap}.db`), historyLimit: cap });
      const id = store.createSession('token:bench');
      for (let i = 0; i < cap; i += 2) {
        store.appendUser(id, text);
        store.appendAssistant(id, text);
      }
      const times: number[] = [];
      for (let i = 0; i < TURNS; i++) {
        const t0 = performance.now();
        const history = store.history(id);
        store.appendUser(id, text);
        store.appendAssistant(id, text);
        times.push(performance.now() - t0);
        if (history.length !== cap) throw new Error(`history of ${history.length}, cap ${cap}`);
      }
      points.push({ size: cap, value: median(times) });
    }
    ctx.section(
      `Scale: one conversation turn at the history cap (${HISTORY_CAPS.map(fmt).join(' / ')} turns)`,
    );
    for (const p of points) ctx.figure(`turn's store work p50, cap ${fmt(p.size)}`, p.value, 'ms');
    curve(
      ctx,
      (n) => `per history turn, cap ${fmt(n)}`,
      'us',
      points.map((p) => ({ size: p.size, value: (p.value * 1000) / p.size })),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function run(ctx: BenchContext): Promise<void> {
  await policySection(ctx);
  await conversationSection(ctx);
  await registrySection(ctx);
  await auditSection(ctx);
}

if (
  process.argv[2] === '--instances' &&
  import.meta.url === pathToFileURL(process.argv[1] ?? '').href
) {
  await serveInstances(
    process.argv[3] ?? '',
    Number(process.argv[4] ?? 1),
    Number(process.argv[5] ?? 1),
  );
}
