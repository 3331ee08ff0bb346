import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import { afterEach, expect, test } from 'vitest';
import { openAuditLog, type AuditLog } from '../../../src/audit/index.js';
import type { ToolCallReport } from '../../../src/brain/api/index.js';
import { createDispatcher } from '../../../src/brain/dispatch/index.js';
import { ToolGateway } from '../../../src/brain/gateway/index.js';
import { Registry } from '../../../src/brain/registry/index.js';
import { serveTools, type ToolWorker } from '../../../src/legion/index.js';
import { openPolicyStore, type PolicyStore } from '../../../src/policy/index.js';
import { createEchoTool, ExecutionLog } from '../../fixtures/tools.js';
import { startNatsCluster, type TestNatsCluster } from '../../helpers/nats.js';
import { waitFor, within } from '../../helpers/wait.js';
import { nextEvent } from '../brain/registry/events.js';

// Issue 14, scope 3: a three-server cluster loses the server a worker is on, then the one the
// brain is on, while calls flow at concurrency 16. Real nats-servers, a real registry,
// dispatcher, gateway, policy and audit log; the workers are in-process so that every
// execution is counted by its decision id.

const LANES = 16;
/** Each call's deadline (the gateway's `callTimeoutMs`). */
const CALL_MS = 1500;
/** A call that has not settled this long after its deadline hangs: the test fails. */
const HANG_MS = CALL_MS + 5000;
/** How the gateway may fail a call the cluster lost: typed, never a hang. */
const TYPED_FAILURES = ['dispatch_timeout', 'no_worker', 'bus_unavailable'];

const A = 0; // the victim worker's server, killed first
const B = 1; // the other worker's server, never killed
const C = 2; // the brain's server, killed second

let cluster: TestNatsCluster | undefined;
let dir: string | undefined;
const stops: (() => unknown)[] = [];

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
  cluster = dir = undefined;
});

interface Call {
  n: number;
  sentAt: number;
  report?: ToolCallReport;
  hung?: boolean;
}

/** LANES callers, each sending its next call when the last settles, until `stop()`. */
function flow(gateway: ToolGateway) {
  const calls: Call[] = [];
  let stopped = false;
  const lane = async () => {
    while (!stopped) {
      const call: Call = { n: calls.length, sentAt: performance.now() };
      calls.push(call);
      const bound = new Promise<'hung'>((r) => setTimeout(() => r('hung'), HANG_MS).unref());
      const invoked = gateway.invoke('echo', { id: `c${call.n}`, sleepMs: 5 }, { actor: 'test' });
      const outcome = await Promise.race([invoked, bound]);
      if (outcome === 'hung') {
        call.hung = true;
        return;
      }
      call.report = outcome;
      // a failed call is retried by its caller a little later, not in a tight loop
      if (outcome.outcome !== 'ok') await new Promise((r) => setTimeout(r, 20));
    }
  };
  const lanes = Promise.all(Array.from({ length: LANES }, lane));
  return {
    calls,
    /** Calls sent after `t` (performance.now()). */
    after: (t: number) => calls.filter((c) => c.sentAt > t),
    stop: async () => {
      stopped = true;
      await lanes;
    },
  };
}

/** Resolves at the connection's next reconnect (to whichever server it found). */
async function nextReconnect(nc: NatsConnection): Promise<void> {
  for await (const s of nc.status()) if (s.type === 'reconnect') return;
}

/** Resolves once the registry has run `count` sweeps that counted misses, from now. */
async function countedSweeps(registry: Registry, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await nextEvent(registry, 'sweep', (e) => e.countedMisses, 10_000);
  }
}

test("kill -9 of the server a worker is on, then of the brain's: calls succeed or fail typed, none runs twice, everyone reconnects, the registry converges", async () => {
  cluster = await startNatsCluster(3);
  dir = await mkdtemp(join(tmpdir(), 'caesar-cluster-failover-'));
  await writeFile(join(dir, 'policy.yaml'), 'version: 1\nallowed_tools:\n  - tool: echo\n');

  const executions = new ExecutionLog();
  const record = (_id: string, workerId: string, decisionId: string) =>
    executions.record(decisionId, workerId);
  // each client is given one server's URL and learns the others from the cluster
  const victimNc = await cluster.connect(A);
  const victim: ToolWorker = await serveTools([createEchoTool({ onExecute: record })], {
    nc: victimNc,
    host: 'victim',
  });
  stops.push(() => victim.stop());
  const survivor = await serveTools([createEchoTool({ onExecute: record })], {
    nc: await cluster.connect(B),
    host: 'survivor',
  });
  stops.push(() => survivor.stop());
  const victimId = victim.instances[0]!.id;
  const survivorId = survivor.instances[0]!.id;
  expect(victimNc.info?.connect_urls?.length, 'the victim learnt the other servers').toBe(3);

  const brainNc = await cluster.connect(C);
  const registry = new Registry({ nc: brainNc, sweepIntervalMs: 200, sweepWindowMs: 100 });
  stops.push(() => registry.close());
  await registry.start();
  const audit: AuditLog = openAuditLog({ path: join(dir, 'audit.db') });
  stops.push(() => audit.close());
  const policy: PolicyStore = await openPolicyStore({
    path: join(dir, 'policy.yaml'),
    reloadSignal: null,
  });
  stops.push(() => policy.close());
  const gateway = new ToolGateway({
    tools: registry,
    policy,
    audit,
    dispatcher: createDispatcher({ nc: brainNc }),
    callTimeoutMs: CALL_MS,
    confirmationTtlMs: 60_000,
  });
  stops.push(() => gateway.close());
  const live = () =>
    registry
      .tool('echo')
      ?.instances.map((i) => i.id)
      .sort() ?? [];
  const both = [victimId, survivorId].sort();
  await waitFor(() => live().length === 2, 'the registry to see both workers');

  const calls = flow(gateway);
  stops.push(() => calls.stop());
  const ranOn = (id: string) => executions.perInstance().get(id) ?? 0;
  await waitFor(() => ranOn(victimId) >= 50, 'the victim to run calls', 10_000);

  // 1. the victim worker's server dies: the worker moves to B or C
  const victimBack = nextReconnect(victimNc);
  await cluster.kill(A);
  const killedA = performance.now();
  await within(victimBack, 'the victim worker to reconnect');
  expect(victimNc.getServer()).not.toBe(cluster.urls[A]!.replace('nats://', ''));
  const victimRanBefore = ranOn(victimId);
  await countedSweeps(registry, 3);
  expect(live(), 'the victim is live again in the registry').toEqual(both);
  await waitFor(() => ranOn(victimId) >= victimRanBefore + 50, 'the victim to run calls again');
  const recovered1 = performance.now();

  // 2. server A comes back (as caesar up's keeper would start it), then the brain's dies
  await cluster.restart(A);
  const brainBack = nextReconnect(brainNc);
  const ranBeforeC = calls.calls.length;
  await waitFor(() => calls.calls.length >= ranBeforeC + 100, 'calls to flow', 10_000);
  await cluster.kill(C);
  const killedC = performance.now();
  await within(brainBack, 'the brain to reconnect');
  await countedSweeps(registry, 3);
  expect(live(), 'both workers are live in the registry').toEqual(both);
  const recovered2 = performance.now();
  const ranAfter = calls.calls.length;
  await waitFor(() => calls.calls.length >= ranAfter + 200, 'calls to flow after recovery');
  await calls.stop();

  const hung = calls.calls.filter((c) => c.hung);
  expect(
    hung.map((c) => c.n),
    'calls that never settled',
  ).toEqual([]);
  const failed = calls.calls.filter((c) => c.report?.outcome !== 'ok');
  for (const c of failed) {
    expect(c.report?.outcome, `call ${c.n}`).toBe('failed');
    expect(TYPED_FAILURES, `call ${c.n}: ${c.report?.error?.message}`).toContain(
      c.report?.error?.code,
    );
    // only calls sent while a server was down fail
    const inFirst = c.sentAt > killedA - CALL_MS - 500 && c.sentAt < recovered1;
    const inSecond = c.sentAt > killedC - CALL_MS - 500 && c.sentAt < recovered2;
    expect(inFirst || inSecond, `call ${c.n} failed outside a failover`).toBe(true);
  }
  // every call that ran, ran once; every success ran
  for (const c of calls.calls) {
    const times = executions.timesRun(c.report!.decision_id);
    expect(times, `call ${c.n} ran ${times} times`).toBeLessThanOrEqual(1);
    if (c.report?.outcome === 'ok') expect(times, `call ${c.n}`).toBe(1);
  }
  // after recovery, every call succeeds, on both workers
  const later = calls.after(recovered2);
  expect(later.length).toBeGreaterThanOrEqual(200);
  expect(later.filter((c) => c.report?.outcome !== 'ok').map((c) => c.report?.error)).toEqual([]);
  const workers = new Set(later.map((c) => (c.report?.result as { worker: string }).worker));
  expect([...workers].sort()).toEqual(both);
}, 60_000);
