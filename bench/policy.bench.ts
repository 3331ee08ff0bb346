/**
 * Policy engine: decisions per second on a 1,000-rule policy, against in-run baselines, and
 * the time to compile and hot-reload that policy.
 *
 * - bare tool call: `evaluate({tool, input})` for a tool with a bare allow rule, against a
 *   Map lookup of the tool id (the least any lookup-based gate can do);
 * - constrained service call: a `light.turn_on`-style call with two target ids (one by glob)
 *   and two constrained data keys, past a non-matching deny rule for the same service,
 *   against `JSON.parse` of the same call (what the brain does anyway to read it);
 * - generic service: `homeassistant.turn_on` on two entities of another domain, each judged
 *   against the deny rules of the service Home Assistant runs there (ADR 0061);
 * - a model's call (ADR 0066): the bare tool call and the constrained service call with a flow
 *   context, against the same call without one: a turn that read nothing (no gate applies,
 *   the per-turn count of a `3/turn` rule kept), and one that read untrusted content (the
 *   `after_untrusted` gate holds the service call: a `confirm` decision);
 * - reload: `PolicyStore.reload()` of the file (read + parse + validate + compile + swap),
 *   against js-yaml's own `load` of the same text (the parse alone: no positions, no bounds,
 *   no validation).
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/run.js policy
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  compilePolicy,
  DEFAULT_POLICY_MAX_BYTES,
  openPolicyStore,
  PolicyEngine,
  type FlowContext,
  type ToolCall,
} from '../src/policy/index.js';
import { load } from 'js-yaml';
import { benchSize, opsPerSecond, percentile, type BenchContext } from './harness.js';

const DOMAINS = 45;
const SERVICES_PER_DOMAIN = 10;
const TOOLS = 400;
const DENIED_SERVICES = 100;
const DENIED_TOOLS = 50;
const RELOADS = benchSize(30, 3);

/**
 * 450 allowed services + 100 denied services + 400 allowed tools + 50 denied tools. `revision`
 * goes into every rule's description, so two revisions share no rule (no validation reuse).
 */
function thousandRulePolicy(revision = 0): string {
  const about = `    description: revision ${revision}`;
  const lines = ['version: 1', 'allowed_services:'];
  for (let d = 0; d < DOMAINS; d++) {
    for (let s = 0; s < SERVICES_PER_DOMAIN; s++) {
      const ids = Array.from({ length: 10 }, (_, i) => `d${d}.room_${i}`).join(', ');
      lines.push(
        `  - service: d${d}.s${s}`,
        about,
        `    target: {entity_id: [${ids}, "d${d}.hall_*"]}`,
        '    data:',
        '      brightness_pct: {min: 1, max: 80}',
        '      color_name: [warm_white, white, red, orange, blue]',
      );
    }
  }
  lines.push('denied_services:');
  for (let i = 0; i < DENIED_SERVICES; i++) {
    lines.push(
      `  - service: d${i % DOMAINS}.s${i % SERVICES_PER_DOMAIN}`,
      about,
      `    target: {entity_id: d${i % DOMAINS}.vault_${i}}`,
    );
  }
  lines.push('allowed_tools:');
  for (let t = 0; t < TOOLS; t++) {
    lines.push(`  - tool: tool_${t}`, about);
    if (t % 2 === 1) lines.push('    input: {query: {type: string, max_length: 200}}');
  }
  lines.push('denied_tools:');
  for (let t = 0; t < DENIED_TOOLS; t++) lines.push(`  - tool: banned_${t}`, about);
  return `${lines.join('\n')}\n`;
}

/** A valid policy of four-line service rules, just under `bytes`. */
function policyOfBytes(bytes: number): string {
  let text = 'version: 1\nallowed_services:\n';
  for (let i = 0; ; i++) {
    const rule = `  - service: light.turn_on\n    id: r${i}\n    target: {entity_id: [light.l${i}]}\n    data: {brightness_pct: {max: 80}}\n`;
    if (text.length + rule.length > bytes) return text;
    text += rule;
  }
}

/** Runs `work` while a setImmediate chain measures the longest gap between its turns. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let longest = 0;
  let last = performance.now();
  let running = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  await work();
  running = false;
  return longest;
}

export async function run(ctx: BenchContext): Promise<void> {
  const text = thousandRulePolicy();
  const policy = compilePolicy(text, { file: 'bench-policy.yaml' });
  const engine = new PolicyEngine(policy);
  let sink = 0;

  ctx.section(`Policy engine (${policy.rules.length} rules)`);

  const toolIds = new Map(Array.from({ length: TOOLS }, (_, t) => [`tool_${t}`, t] as const));
  const bare: ToolCall = { tool: 'tool_200', input: { expression: '17 * 23' } };
  const lookup = opsPerSecond(() => {
    sink += toolIds.get('tool_200') ?? 0;
  });
  ctx.figure('baseline: Map lookup of the tool id', lookup, 'ops/s');
  const bareRate = opsPerSecond(() => {
    if (engine.evaluate(bare).allowed) sink++;
  });
  ctx.figure('evaluate: bare tool call (allow)', bareRate, 'ops/s', {
    baseline: lookup,
    target: '>= 1,000,000/s',
  });
  const unknown = opsPerSecond(() => {
    if (!engine.evaluate({ tool: 'not_listed', input: {} }).allowed) sink++;
  });
  ctx.figure('evaluate: unlisted tool (default deny)', unknown, 'ops/s', { baseline: lookup });

  // d7.s3 has a deny rule (for d7.vault_52) that is checked and does not match.
  const serviceJson = JSON.stringify({
    domain: 'd7',
    service: 's3',
    target: { entity_id: ['d7.room_4', 'd7.hall_2'] },
    data: { brightness_pct: 40, color_name: 'warm_white' },
  });
  const service = JSON.parse(serviceJson) as ToolCall;
  const parse = opsPerSecond(() => {
    sink += (JSON.parse(serviceJson) as { service: string }).service.length;
  });
  ctx.figure('baseline: JSON.parse of the service call', parse, 'ops/s');
  const constrained = opsPerSecond(() => {
    if (engine.evaluate(service).allowed) sink++;
  });
  ctx.figure('evaluate: constrained service call (allow)', constrained, 'ops/s', {
    baseline: parse,
    target: '>= 200,000/s',
  });
  const outside = { ...service, target: { entity_id: 'd7.bedroom' } } as ToolCall;
  const rejected = opsPerSecond(() => {
    if (!engine.evaluate(outside).allowed) sink++;
  });
  ctx.figure('evaluate: constrained service call (deny)', rejected, 'ops/s', {
    baseline: parse,
  });
  const explain = opsPerSecond(() => {
    sink += engine.explain(service).trace.length;
  });
  ctx.figure('explain: constrained service call', explain, 'ops/s', { baseline: parse });

  // The same policy with homeassistant.turn_on allowed and a deny rule for d7.turn_on: the
  // generic service on two d7 entities is judged per entity as d7.turn_on (ADR 0061).
  const generic = new PolicyEngine(
    compilePolicy(
      text
        .replace('allowed_services:\n', 'allowed_services:\n  - service: homeassistant.turn_on\n')
        .replace(
          'denied_services:\n',
          'denied_services:\n  - service: d7.turn_on\n    target: {entity_id: d7.vault}\n',
        ),
      { file: 'bench-policy.yaml' },
    ),
  );
  const forwarded = {
    domain: 'homeassistant',
    service: 'turn_on',
    target: { entity_id: ['d7.room_4', 'd7.hall_2'] },
  } as ToolCall;
  const crossDomain = opsPerSecond(() => {
    if (generic.evaluate(forwarded).allowed) sink++;
  });
  ctx.figure(
    'evaluate: generic service on entities of another domain (allow)',
    crossDomain,
    'ops/s',
    {
      baseline: parse,
    },
  );

  // A model's calls (ADR 0066): the same calls with a flow context.
  const quiet: FlowContext = {
    afterUntrusted: false,
    afterPrivate: false,
    changesState: true,
    openWorld: true,
    sharesPrivateWords: false,
  };
  const asModel = { flow: quiet };
  const modelBare = opsPerSecond(() => {
    if (engine.evaluate(bare, asModel).allowed) sink++;
  });
  ctx.figure("evaluate: bare tool call, a model's (no gate)", modelBare, 'ops/s', {
    baseline: bareRate,
  });
  const modelService = opsPerSecond(() => {
    if (engine.evaluate(service, asModel).allowed) sink++;
  });
  ctx.figure("evaluate: constrained service call, a model's (no gate)", modelService, 'ops/s', {
    baseline: constrained,
  });
  const afterUntrusted = { flow: { ...quiet, afterUntrusted: true } };
  const gated = opsPerSecond(() => {
    if (engine.evaluate(service, afterUntrusted).outcome === 'confirm') sink++;
  });
  ctx.figure(
    'evaluate: constrained service call after untrusted content (confirm)',
    gated,
    'ops/s',
    {
      baseline: constrained,
    },
  );
  const perTurn = new PolicyEngine(
    compilePolicy(
      text.replace('  - tool: tool_200\n', '  - tool: tool_200\n    rate_limit: 3/turn\n'),
      {
        file: 'bench-policy.yaml',
      },
    ),
  );
  const turnCounts = new Map<string, number>();
  const counted = { flow: { ...quiet, turnCounts } };
  const turnRate = opsPerSecond(() => {
    turnCounts.clear(); // a new turn each time: every call is counted and allowed
    if (perTurn.evaluate(bare, counted).allowed) sink++;
  });
  ctx.figure("evaluate: bare tool call, a model's, counted per turn", turnRate, 'ops/s', {
    baseline: bareRate,
  });

  // Cold: every revision is new text in every rule, so nothing validated before is reused.
  const coldMs: number[] = [];
  const coldTexts = Array.from({ length: RELOADS }, (_, i) => thousandRulePolicy(i + 1));
  for (const t of coldTexts) {
    const t0 = performance.now();
    sink += compilePolicy(t).rules.length;
    coldMs.push(performance.now() - t0);
  }
  ctx.figure('compile, every rule new (p50)', percentile(coldMs, 50), 'ms');
  ctx.figure('compile, every rule new (p99)', percentile(coldMs, 99), 'ms');
  const libraryMs: number[] = [];
  for (const t of coldTexts.slice(0, 10)) {
    const t0 = performance.now();
    sink += load(t) === null ? 0 : 1;
    libraryMs.push(performance.now() - t0);
  }
  ctx.figure('baseline: js-yaml load alone (p50)', percentile(libraryMs, 50), 'ms');

  // Reload as an operator causes it: one rule edited per save; read + parse + validate + swap.
  const dir = await mkdtemp(join(tmpdir(), 'caesar-policy-bench-'));
  try {
    const file = join(dir, 'policy.yaml');
    await writeFile(file, text);
    using store = await openPolicyStore({ path: file, watch: false, reloadSignal: null });
    const reloadMs: number[] = [];
    for (let i = 0; i < RELOADS; i++) {
      await writeFile(file, text.replace('max_length: 200', `max_length: ${300 + i}`));
      const t0 = performance.now();
      const event = await store.reload();
      reloadMs.push(performance.now() - t0);
      if (event.type !== 'policy.reloaded') throw new Error('bench policy failed to reload');
    }
    const target = { target: '< 50 ms' };
    ctx.figure('reload after a one-rule edit (p50)', percentile(reloadMs, 50), 'ms', target);
    ctx.figure('reload after a one-rule edit (p99)', percentile(reloadMs, 99), 'ms', target);

    const fullMs: number[] = [];
    for (const t of coldTexts.slice(0, 10)) {
      await writeFile(file, t.replace('revision', 'rev'));
      const t0 = performance.now();
      await store.reload();
      fullMs.push(performance.now() - t0);
    }
    ctx.figure('reload, every rule new (p50)', percentile(fullMs, 50), 'ms', target);

    // A file at the size bound (ADR 0013): how long the event loop is held at a stretch.
    const big = policyOfBytes(DEFAULT_POLICY_MAX_BYTES);
    const wholeMs: number[] = [];
    const stallMs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      sink += compilePolicy(big.replace('id: r0', `id: w${i}`)).rules.length;
      wholeMs.push(performance.now() - t0);
      await writeFile(file, big.replace('id: r0', `id: s${i}`));
      stallMs.push(await longestStall(() => store.reload()));
    }
    ctx.figure(
      `baseline: compile of a ${DEFAULT_POLICY_MAX_BYTES / 1024} KiB policy in one piece (p50)`,
      percentile(wholeMs, 50),
      'ms',
    );
    ctx.figure(
      'reload of that policy: longest event-loop stall (p50)',
      percentile(stallMs, 50),
      'ms',
      {
        baseline: percentile(wholeMs, 50),
      },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  if (sink === -1) console.log(sink);
}
