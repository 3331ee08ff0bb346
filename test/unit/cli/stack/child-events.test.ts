import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { readRuntimeFile } from '../../../../src/config/index.js';
import { BrainMailbox } from '../../../../src/cli/stack/brain-mailbox.js';
import { childEvents } from '../../../../src/cli/stack/child-events.js';
import type {
  BrainReady,
  SupervisorMessage,
  WorkerPreflight,
  WorkerReady,
} from '../../../../src/cli/stack/messages.js';
import { PreflightBoard } from '../../../../src/cli/stack/preflight.js';
import type { SupervisorEvents } from '../../../../src/cli/stack/supervisor.js';
import { RuntimeRecord, runtimeInfo } from '../../../../src/cli/stack/runtime-record.js';
import { StartupGate } from '../../../../src/cli/stack/startup.js';
import { waitFor } from '../../../helpers/wait.js';

let dir: string;
let said: string[];
let logged: string[];
let gate: StartupGate;
let preflight: PreflightBoard;
let record: RuntimeRecord;
let events: SupervisorEvents;
/** What reached the brain; `brainTakes` false: it cannot take messages now. */
let toBrain: SupervisorMessage[];
let brainTakes: boolean;

const brain: BrainReady = {
  type: 'brain_ready',
  url: 'http://127.0.0.1:8420',
  nats_url: 'nats://127.0.0.1:4222',
  tokens_file: '/srv/var/api-tokens.yaml',
  created_tokens_file: false,
  audit_db: '/srv/var/audit.db',
  policy_file: '/srv/policy.yaml',
};
const calculator: WorkerReady = {
  type: 'worker_ready',
  instances: [{ tool: 'calculator', id: 'i1', host: 'pi4' }],
};
/** A preflight reply of `tool`: ready, or failing its `configured` check. */
function preflightOf(tool: string, ok: boolean): WorkerPreflight {
  return {
    type: 'worker_preflight',
    replies: [
      {
        v: 1,
        tool,
        ok,
        warnings: [],
        checks: ok ? [] : [{ name: 'configured', ok: false, detail: 'set X (tools.x)' }],
        execution_locality: 'local',
        resource_requirements: { cpu: 'low', memory_mb: 64, network: false },
        worker: { id: 'i1', host: 'pi4' },
      },
    ],
  };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-child-events-'));
  said = [];
  logged = [];
  gate = new StartupGate(['brain', 'calculator']);
  // a limit none of the replies below reach, unless a test asks for more
  preflight = new PreflightBoard({ allowGpu: true, maxVcpus: 8 });
  record = new RuntimeRecord(dir, (l) => said.push(l));
  toBrain = [];
  brainTakes = true;
  const mailbox = new BrainMailbox((m) => brainTakes && toBrain.push(m) > 0);
  events = childEvents({
    mailbox,
    say: (l) => said.push(l),
    log: (l) => logged.push(l),
    logFormat: 'pretty',
    gate,
    preflight,
    record,
    pidOf: (name) => (name === 'brain' ? 101 : 202),
  });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The error the start fails with. */
async function startFailure(): Promise<string> {
  const err = await gate.wait(30_000).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(Error);
  return (err as Error).message;
}

describe("caesar up's handling of its children", () => {
  test('every child ready: each is announced, and the start resolves with the brain', async () => {
    events.onMessage!('calculator', calculator);
    events.onMessage!('brain', brain);
    expect(await gate.wait(30_000)).toEqual(brain);
    expect(said).toEqual([
      'calculator    serving  (pid 202, instance i1)',
      'brain         http://127.0.0.1:8420  (pid 101, audit /srv/var/audit.db)',
    ]);
  });

  test('a malformed message before the stack is up fails the start, naming child and field', async () => {
    events.onMalformed!('calculator', 'instances: expected at least one instance');
    expect(await startFailure()).toBe(
      'calculator sent a malformed message, refused (instances: expected at least one instance)',
    );
  });

  test("a brain that sends a worker's ready message is refused", async () => {
    events.onMessage!('brain', calculator);
    expect(await startFailure()).toBe(
      'brain sent a malformed message, refused (type: expected brain_ready, got worker_ready)',
    );
  });

  test('a fatal message before the stack is up fails the start with the reason', async () => {
    events.onMessage!('brain', { type: 'fatal', message: 'policy.yaml:2:3: bad rule' });
    expect(await startFailure()).toBe('brain could not start: policy.yaml:2:3: bad rule');
  });

  test('once the stack is up, failures are status lines and the start stands', async () => {
    events.onMessage!('calculator', calculator);
    events.onMessage!('brain', brain);
    await gate.wait(30_000);
    gate.close();
    said = [];
    events.onMessage!('calculator', { type: 'fatal', message: 'no backend' });
    events.onMalformed!('brain', 'url: expected an http(s) URL');
    expect(said).toEqual([
      'calculator    failed: no backend',
      'brain         sent a malformed message, refused (url: expected an http(s) URL)',
    ]);
  });

  test('a restarted brain on a new URL is written into the published runtime.json', async () => {
    const nats = { urls: ['nats://127.0.0.1:4222'] };
    await record.publish(runtimeInfo(brain, nats, dir, ['calculator']));
    events.onMessage!('brain', { ...brain, url: 'http://127.0.0.1:9911' });
    await waitFor(
      async () => (await readRuntimeFile(dir))?.api_url === 'http://127.0.0.1:9911',
      'runtime.json to name the new URL',
    );
  });

  test("a worker's preflight is kept for the start's summary, not printed before it", async () => {
    events.onMessage!('calculator', preflightOf('calculator', false));
    expect(said).toEqual([]);
    expect(await preflight.lines(['calculator'], 30_000)).toEqual([
      'calculator: not configured: set X (tools.x)',
    ]);
  });

  test('a worker reporting for another tool, or the brain reporting at all, is refused', async () => {
    events.onMessage!('calculator', preflightOf('web_search', true));
    expect(await startFailure()).toBe(
      'calculator sent a malformed message, refused (type: worker_preflight: calculator cannot report for tool web_search)',
    );
    expect(await preflight.lines(['web_search'], 10)).toEqual([
      'web_search: preflight failed: error: no answer within 0.01 s',
    ]);
  });

  test('once the stack is up, a restarted worker prints its preflight', async () => {
    events.onMessage!('calculator', calculator);
    events.onMessage!('brain', brain);
    await gate.wait(30_000);
    gate.close();
    said = [];
    events.onMessage!('calculator', preflightOf('calculator', true));
    expect(said).toEqual(['preflight     calculator: ready']);
  });

  test("a restarted worker's preflight line carries the operator's limits", async () => {
    events.onMessage!('calculator', calculator);
    events.onMessage!('brain', brain);
    await gate.wait(30_000);
    gate.close();
    said = [];
    const report = preflightOf('calculator', true);
    const reply = { ...report.replies[0]! };
    reply.resource_requirements = { ...reply.resource_requirements, min_vcpus: 16 };
    events.onMessage!('calculator', { ...report, replies: [reply] });
    expect(said).toEqual([
      'preflight     calculator: ready, warns: min_vcpus: the tool asks for 16 vCPUs; tools.limits.max_vcpus is 8',
    ]);
  });

  test("a child's output lines are logged with its name", () => {
    events.onOutput!('brain', 'listening');
    expect(logged).toEqual(['[brain] listening']);
  });

  // issue 29, point 9: the up terminal showed a JSON `policy.reload_failed` record before
  // the brain's readable line for the same event
  test("a child's JSON record shows as one readable line; one the child prints itself, not at all", () => {
    const record = (fields: object) =>
      JSON.stringify({ level: 40, time: Date.UTC(2026, 0, 1), pid: 7, ...fields });
    events.onOutput!(
      'calculator',
      record({ component: 'worker', tool: 'calculator', msg: 'slow' }),
    );
    events.onOutput!(
      'brain',
      record({
        process: 'brain',
        component: 'policy',
        type: 'policy.reload_failed',
        path: '/srv/policy.yaml',
        msg: 'policy reload failed; keeping the last good policy',
      }),
    );
    events.onOutput!('brain', 'policy: NOT loaded: /srv/policy.yaml:3:5: …');
    expect(logged).toHaveLength(2);
    expect(logged[0]).toMatch(
      /^\[calculator\] \[\d\d:\d\d:\d\d\.\d{3}\] WARN: worker: slow \{"tool":"calculator"\}$/,
    );
    expect(logged[1]).toBe('[brain] policy: NOT loaded: /srv/policy.yaml:3:5: …');
    expect(logged.join('\n')).not.toContain('{"level"');
  });

  test('with log.format json the records pass as written', () => {
    const piped = childEvents({
      mailbox: new BrainMailbox(() => false),
      say: (l) => said.push(l),
      log: (l) => logged.push(l),
      logFormat: 'json',
      gate,
      preflight,
      record,
      pidOf: () => undefined,
    });
    const line = JSON.stringify({ level: 40, component: 'policy', type: 'policy.reload_failed' });
    piped.onOutput!('brain', line);
    expect(logged).toEqual([`[brain] ${line}`]);
  });
});

describe('restarts', () => {
  const restart = (count: number) => ({
    reason: 'unresponsive' as const,
    detail: 'no heartbeat for 10.2 s',
    count,
    pid: 4242,
    exit: { code: null, signal: 'SIGKILL' },
    at: new Date('2026-12-04T19:00:00.000Z'),
    delayMs: 500,
  });

  test('a restart is said, and reaches the brain once it is ready, in order', () => {
    events.onRestart!('calendar_read', restart(1));
    expect(said).toContain(
      'calendar_read no heartbeat for 10.2 s [unresponsive]; restart 1, in 500 ms',
    );
    // the brain is not ready yet: kept
    expect(toBrain).toEqual([]);
    events.onMessage!('brain', brain);
    events.onRestart!('calendar_read', restart(2));
    expect(toBrain).toEqual([
      {
        type: 'child_restarted',
        name: 'calendar_read',
        kind: 'worker',
        reason: 'unresponsive',
        detail: 'no heartbeat for 10.2 s',
        count: 1,
        pid: 4242,
        exit: { code: null, signal: 'SIGKILL' },
        at: '2026-12-04T19:00:00.000Z',
        delay_ms: 500,
      },
      expect.objectContaining({ name: 'calendar_read', count: 2 }),
    ]);
  });

  test("the brain's own restart reaches the brain that follows it", () => {
    events.onMessage!('brain', brain);
    events.onRestart!('brain', {
      ...restart(1),
      reason: 'memory',
      detail: 'V8 heap limit reached',
    });
    expect(toBrain).toEqual([]);
    events.onMessage!('brain', brain);
    expect(toBrain).toEqual([
      expect.objectContaining({ name: 'brain', kind: 'brain', reason: 'memory' }),
    ]);
  });

  test('a message the brain cannot take now is kept for the next ready', () => {
    events.onMessage!('brain', brain);
    brainTakes = false;
    events.onRestart!('calculator', restart(1));
    brainTakes = true;
    events.onRestart!('calculator', restart(2));
    // the channel refused once: kept until the brain says it is ready again
    expect(toBrain).toEqual([]);
    events.onMessage!('brain', brain);
    expect(toBrain.map((m) => m.count)).toEqual([1, 2]);
  });
});
