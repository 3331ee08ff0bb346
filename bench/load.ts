/**
 * A load generator in a process of its own, so the bench process never saturates before
 * the system it measures. The parent starts it with one mode and sends one JSON command per
 * stdin line; each answer is one JSON line on stdout (`LoadResult`).
 *
 * - `http <url> <token>`: autocannon against `POST /v1/tools/calculator/invoke`, every
 *   answer checked for `"outcome":"ok"`.
 * - `direct <nats-url> [seed-file]`: the brain's own dispatcher (`createDispatcher`) sends the
 *   same call to `caesar.dispatch.tool.calculator`, with a decision id and trace context as
 *   the gateway makes them, and with a seed file a grant and bound replies as the brain makes
 *   them: its registry lists the calculator's instances, so the grant is MACed for them (ADR
 *   0108) and the replies MACed back (ADR 0105), and the bytes on the wire are the brain's.
 *
 * Latencies are kept per call as floats (autocannon's own histogram rounds to whole ms).
 */
import autocannon from 'autocannon';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { createDispatcher, ReplyBinding } from '../src/brain/dispatch/index.js';
import { startRegistry } from '../src/brain/registry/index.js';
import { newDecisionId, traceparentFor } from '../src/brain/gateway/ids.js';
import { openAuditLog, type AuditLog } from '../src/audit/index.js';
import { connectBus, readNkeySeed } from '../src/bus/index.js';
import { GrantSigner } from '../src/protocol/grant.js';
import { durableWriter } from './brain-probes.js';

/** The call both paths make. */
export const CALC_TOOL = 'calculator';
export const CALC_INPUT = { expression: '17 * 23' } as const;
const CALL_TIMEOUT_MS = 10_000;
/** What a direct call's grant names as its policy: no policy judged it. */
const BENCH_POLICY_SHA = '0'.repeat(64);

export interface LoadCommand {
  /** Calls in flight at once (connections for HTTP). */
  readonly concurrency: number;
  /** Calls in all. */
  readonly calls: number;
  /**
   * Direct only: before each call (untimed), commit one row durably to a SQLite file in this
   * directory, as the brain commits `tool.called` right before it dispatches. The disk's
   * flush and the idle time it leaves slow the next round trip on this VM: this measures
   * the dispatch the governed path can have at best.
   */
  readonly commitBefore?: string;
  /**
   * Direct only: each call between a `tool.called` and a `tool.result` row appended to an
   * audit log of the brain's own kind (its writer thread, hash chain and durable commits) in
   * this directory, and timed with both: the governed call's storage and dispatch as one
   * process composes them, with no HTTP, auth, policy, schemas or grants.
   */
  readonly audited?: string;
  /**
   * Direct only: each call between two durable commits of one row of the audit log's schema
   * by raw SQL, on this thread, to a SQLite file in this directory, timed with both: the
   * storage and dispatch of a governed call with the commits as cheap as SQLite makes them.
   */
  readonly commitAround?: string;
  /** HTTP only: an open loop at this many requests per second in all, not as fast as it can. */
  readonly rate?: number;
}

export interface LoadResult {
  /** Completed calls per second over the whole run. */
  readonly rate: number;
  /** Latency percentiles, microseconds. */
  readonly p50: number;
  readonly p99: number;
  /** Calls that failed or answered anything but a successful outcome. */
  readonly failed: number;
  /** CPU time of this process per call, microseconds (is the generator near a core?). */
  readonly cpuPerCall: number;
}

type Runner = (cmd: LoadCommand) => Promise<Omit<LoadResult, 'cpuPerCall'>>;

function summarise(latencies: number[], elapsedMs: number, failed: number) {
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)] ?? NaN;
  return {
    rate: latencies.length / (elapsedMs / 1000),
    p50: at(0.5) * 1000,
    p99: at(0.99) * 1000,
    failed,
  };
}

function httpRunner(url: string, token: string): Runner {
  const body = JSON.stringify({ input: CALC_INPUT });
  return async ({ concurrency, calls, rate }) => {
    const latencies: number[] = [];
    const started = performance.now();
    let lastAt = started;
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      const options: autocannon.Options = {
        url: `${url}/v1/tools/${CALC_TOOL}/invoke`,
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
        connections: concurrency,
        amount: calls,
        ...(rate === undefined ? {} : { overallRate: rate }),
        timeout: CALL_TIMEOUT_MS / 1000,
        verifyBody: (text) => String(text).includes('"outcome":"ok"'),
      };
      const instance = autocannon(options, (err: unknown, res) => {
        if (err)
          reject(
            err instanceof Error ? err : new Error(`autocannon failed: ${JSON.stringify(err)}`),
          );
        else resolve(res);
      });
      instance.on('response', (_client, status, _bytes, ms) => {
        lastAt = performance.now();
        if (status === 200) latencies.push(ms);
      });
    });
    // autocannon resolves on its next one-second sampling tick, not at the last answer:
    // timing to the resolve read 8,000 calls in 1.2 s as 4,000/s
    const elapsed = lastAt - started;
    const failed = result.errors + result.timeouts + result.non2xx + result.mismatches;
    return summarise(latencies, elapsed, failed);
  };
}

async function directRunner(natsUrl: string, seedFile: string): Promise<Runner> {
  const nc = await connectBus({ servers: natsUrl, name: 'bench-direct' });
  const signer = seedFile === '' ? undefined : new GrantSigner((await readNkeySeed(seedFile)).seed);
  // the brain's registry and reply binding, so the grants and replies are the brain's
  const registry = signer && (await startRegistry({ nc, expectedTools: [CALC_TOOL] }));
  const replies = registry && new ReplyBinding({ instances: registry });
  const dispatcher = createDispatcher({
    nc,
    ...(signer ? { signer } : {}),
    ...(replies ? { replies } : {}),
  });
  return async ({ concurrency, calls, commitBefore, audited, commitAround }) => {
    const latencies: number[] = [];
    let failed = 0;
    const commit =
      commitBefore === undefined ? undefined : await durableWriter(commitBefore, 'page');
    const around =
      commitAround === undefined ? undefined : await durableWriter(commitAround, 'audit');
    const log = audited === undefined ? undefined : await openBenchAudit(audited);
    let next = 0;
    const lane = async () => {
      while (next++ < calls) {
        commit?.write();
        const decisionId = newDecisionId();
        const t = performance.now();
        const deadline = Date.now() + CALL_TIMEOUT_MS;
        around?.write();
        await log?.append(calledRow(decisionId, deadline));
        const reply = await dispatcher.dispatch(CALC_TOOL, CALC_INPUT, {
          decisionId,
          deadline,
          traceparent: traceparentFor(decisionId),
          policySha256: BENCH_POLICY_SHA,
        });
        if (reply.success) {
          around?.write();
          await log?.append(resultRow(decisionId, reply.result, reply.duration_ms));
          latencies.push(performance.now() - t);
        } else failed++;
      }
    };
    const started = performance.now();
    try {
      await Promise.all(Array.from({ length: concurrency }, lane));
    } finally {
      commit?.close();
      around?.close();
      await log?.close();
    }
    return summarise(latencies, performance.now() - started, failed);
  };
}

/** An audit log as the brain opens one (durable commits), with no retention timer. */
async function openBenchAudit(dir: string): Promise<AuditLog> {
  const log = openAuditLog({
    path: join(dir, 'direct-audit.db'),
    retention: { days: 0, intervalMs: 0 },
  });
  await log.ready();
  return log;
}

const BENCH_DECISION = {
  allowed: true,
  reason: 'bench: no policy judged this call',
  rule: null,
  policy_sha256: BENCH_POLICY_SHA,
};

const calledRow = (decisionId: string, deadline: number) =>
  ({
    type: 'tool.called',
    actor: 'bench',
    tool: CALC_TOOL,
    decisionId,
    payload: { input: CALC_INPUT, decision: BENCH_DECISION, deadline },
  }) as const;

const resultRow = (decisionId: string, result: unknown, durationMs: number) =>
  ({
    type: 'tool.result',
    actor: 'bench',
    tool: CALC_TOOL,
    decisionId,
    payload: { result, duration_ms: durationMs },
  }) as const;

async function serve(args: string[]): Promise<void> {
  const [mode, target = '', extra = ''] = args;
  const runner = mode === 'http' ? httpRunner(target, extra) : await directRunner(target, extra);
  const lines = createInterface({ input: process.stdin });
  process.stdout.write('ready\n');
  for await (const line of lines) {
    const cmd = JSON.parse(line) as LoadCommand;
    const cpu0 = process.cpuUsage();
    const result = await runner(cmd);
    const cpu = process.cpuUsage(cpu0);
    const cpuPerCall = (cpu.user + cpu.system) / cmd.calls;
    process.stdout.write(`${JSON.stringify({ ...result, cpuPerCall })}\n`);
  }
  process.exit(0);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await serve(process.argv.slice(2));
}
