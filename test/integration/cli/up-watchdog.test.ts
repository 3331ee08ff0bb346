import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isAlive } from '../../../src/process/process-tree.js';
import { runCli, startCli, type RunningCli } from '../../helpers/cli.js';
import { startNats } from '../../helpers/nats.js';
import { cpuTimeMs } from '../../helpers/proc.js';
import { firstToken } from '../../helpers/tokens.js';
import { waitFor, within } from '../../helpers/wait.js';

/**
 * Issue 28 (ADR 0070), through `caesar up` as an operator runs it: a tool whose handler spins
 * forever blocks its worker's event loop; the worker is killed within the watchdog timeout
 * (plus one check), said, audited as `worker.restarted` and started again, and the next
 * call works; one that reaches its heap ceiling is restarted the same way; `caesar up`
 * stopped while a worker spins leaves no process behind (checked by pid).
 */

/** A tool module: `ok` answers, `spin` never returns, `hog` allocates until the heap is full. */
const MODULE = `export default {
  name: 'spinner',
  version: '1.0.0',
  description: 'Test tool: answers, spins forever, or eats its heap. Example: {"mode": "ok"}.',
  input: {
    type: 'object',
    properties: { mode: { enum: ['ok', 'spin', 'hog'] } },
    required: ['mode'],
    additionalProperties: false,
  },
  output: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  executionLocality: 'local',
  resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
  timeoutMs: 1500,
  async handler(input) {
    if (input.mode === 'spin') for (;;) {}
    if (input.mode === 'hog') {
      // 1 MB arrays: the heap fills in a few dozen steps, not in a long crawl of collections
      const keep = [];
      for (let i = 0; ; i++) keep.push(new Array(1 << 17).fill(i));
    }
    return { ok: true };
  },
};
`;

/** Listens where systemd would (NOTIFY_SOCKET) and prints each notification on a line. */
const SINK = fileURLToPath(new URL('../../fixtures/systemd/notify-sink.py', import.meta.url));

const POLICY = `version: 1
allowed_tools:
  - calculator
  - spinner
`;

let dir: string;
let varDir: string;
let up: RunningCli;
let apiUrl: string;
let token: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-up-watchdog-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function invoke(mode: string): Promise<{ outcome: string; error?: { code: string } }> {
  const res = await fetch(`${apiUrl}/v1/tools/spinner/invoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ input: { mode } }),
  });
  return (await res.json()) as { outcome: string; error?: { code: string } };
}

/** The pid of the spinner worker serving now: the last `serving` line's. */
function spinnerPid(after = 0): number | undefined {
  const lines = up.lines.slice(after).filter((l) => /^spinner\s+serving\s+\(pid \d+/.test(l));
  const last = lines.at(-1);
  return last === undefined ? undefined : Number(/\(pid (\d+)/.exec(last)![1]);
}

/**
 * Whether `pid` spins within `ms`: it has used 150 ms of CPU since the call, which an idle
 * worker never does. Counted from the start rather than per sample, so a machine whose other
 * load leaves the spinner a third of a core still shows it (a 200 ms sample needing half a
 * core did not, at load 7). False once the watchdog has killed it (it is gone, or `caesar up`
 * said it restarted the spinner after `mark`).
 */
async function spinsWithin(pid: number, ms: number, mark: number): Promise<boolean> {
  const until = Date.now() + ms;
  let t0: number;
  try {
    t0 = cpuTimeMs(pid);
  } catch {
    return false;
  }
  while (Date.now() < until && isAlive(pid) && spinnerPid(mark) === undefined) {
    await new Promise((r) => setTimeout(r, 50));
    try {
      if (cpuTimeMs(pid) - t0 > 150) return true;
    } catch {
      return false; // its /proc entry went away mid-sample: killed
    }
  }
  return false;
}

/** Invokes `ok` until the (new) worker answers. */
async function answersAgain(): Promise<void> {
  await waitFor(
    async () => (await invoke('ok')).outcome === 'ok',
    'a call to the restarted spinner to work',
    30_000,
    200,
  );
}

describe('caesar up watches its workers', () => {
  beforeAll(async () => {
    varDir = join(dir, 'var');
    await writeFile(join(dir, 'spinner.js'), MODULE);
    await writeFile(join(dir, 'policy.yaml'), POLICY);
    up = startCli(
      ['up', '--tools', 'calculator', '--nats-port', '0', '--api-port', '0', '--data-dir', varDir],
      {
        CAESAR_LOG__LEVEL: 'warn',
        CAESAR_POLICY__FILE: join(dir, 'policy.yaml'),
        CAESAR_WORKER__MODULES: './spinner.js',
        CAESAR_WATCHDOG__TIMEOUT: '2s',
        CAESAR_WATCHDOG__STOP_GRACE: '2s',
        CAESAR_WORKER__MAX_HEAP: '64',
      },
      { cwd: dir },
    );
    await up.waitForLine(/^ready: /, 60_000);
    const runtime = JSON.parse(await readFile(join(varDir, 'runtime.json'), 'utf8')) as {
      api_url: string;
      token_file: string;
    };
    apiUrl = runtime.api_url;
    token = await firstToken(runtime.token_file);
  }, 90_000);

  afterAll(async () => {
    if (up.child.exitCode !== null) return;
    up.child.kill('SIGINT');
    await up.closed;
  }, 30_000);

  test('a handler that spins forever: the worker is killed within the timeout, restarted, and the next call works', async () => {
    expect((await invoke('ok')).outcome).toBe('ok');
    const stuck = spinnerPid()!;
    const mark = up.lines.length;
    const spun = invoke('spin');
    const killed = await up.waitForLine(
      new RegExp(
        `^spinner\\s+pid ${stuck} no heartbeat for (\\d+\\.\\d) s: killing it \\(SIGKILL\\)`,
      ),
      30_000,
    );
    // the bound: no longer than the timeout plus one interval (0.5 s) and a check
    const silentS = Number(/for (\d+\.\d) s/.exec(killed)![1]);
    expect(silentS).toBeGreaterThanOrEqual(2);
    expect(silentS).toBeLessThanOrEqual(3.1);
    await up.waitForLine(
      /^spinner\s+no heartbeat for \d+\.\d s \[unresponsive\]; restart 1, in \d+ ms/,
    );
    expect((await spun).outcome).not.toBe('ok');
    await waitFor(() => !isAlive(stuck), 'the stuck worker to be gone');
    const fresh = await waitFor(() => spinnerPid(mark), 'the spinner to serve again', 30_000, 50);
    expect(fresh).not.toBe(stuck);
    await answersAgain();
    // the brain audits it
    const stuckRows = await waitFor(
      async () => {
        const audit = await runCli([
          'audit',
          'query',
          '--type',
          'worker.restarted',
          '--json',
          '--data-dir',
          varDir,
        ]);
        expect(audit.code, audit.stderr).toBe(0);
        // the stuck worker's row: under heavy load a starved worker may miss its own heartbeat
        // and be restarted too, which is the watchdog doing its job
        const stuckRows = audit.stdout
          .trim()
          .split('\n')
          .filter(
            (r) =>
              r !== '' && (JSON.parse(r) as { payload: { pid?: number } }).payload.pid === stuck,
          );
        return stuckRows.length === 0 ? undefined : stuckRows;
      },
      'the worker.restarted row',
      10_000,
      200,
    );
    expect(stuckRows).toHaveLength(1);
    expect(JSON.parse(stuckRows[0]!)).toMatchObject({
      tool: 'spinner',
      payload: { name: 'spinner', kind: 'worker', reason: 'unresponsive', count: 1, pid: stuck },
    });
  }, 90_000);

  test('a handler that eats its heap: the worker is restarted at its ceiling, saying so', async () => {
    const before = spinnerPid()!;
    const mark = up.lines.length;
    const hogged = invoke('hog');
    await up.waitForLine(
      /^spinner\s+V8 heap limit \(64 MB\) reached \[memory\]; restart 2, in \d+ ms/,
      60_000,
    );
    expect((await hogged).outcome).not.toBe('ok');
    await waitFor(() => !isAlive(before), 'the hog to be gone');
    await waitFor(() => spinnerPid(mark), 'the spinner to serve again', 30_000, 50);
    await answersAgain();
    // the restarted worker says so in its registry entry
    const listed = await waitFor(
      async () => {
        const r = await runCli(['legion', 'list', '--data-dir', varDir], {}, { cwd: dir });
        expect(r.code, r.stderr).toBe(0);
        return /^spinner \S+ on \S+: restarted 2x, last: memory at \S+$/m.exec(r.stdout);
      },
      'legion list to show the restarts',
      20_000,
      250,
    );
    expect(listed[0]).toContain('restarted 2x, last: memory');
  }, 90_000);

  test('caesar up stopped while a worker spins leaves no process', async () => {
    const text = up.lines.join('\n');
    const pids = [
      Number(/^nats-server\s+\S+\s+\(pid (\d+)/m.exec(text)![1]),
      Number(/^brain\s+http\S+\s+\(pid (\d+)/m.exec(text)![1]),
      Number(/^calculator\s+serving\s+\(pid (\d+)/m.exec(text)![1]),
      spinnerPid()!,
    ];
    for (const pid of pids) expect(isAlive(pid)).toBe(true);
    // the worker spins: it uses a core. On a loaded machine the watchdog (2 s) may kill it
    // before a sample shows that; then the restarted worker is asked to spin again.
    let spinning = false;
    for (let attempt = 1; attempt <= 3 && !spinning; attempt++) {
      await answersAgain();
      const mark = up.lines.length;
      const spinner = spinnerPid()!;
      if (!pids.includes(spinner)) pids.push(spinner);
      void invoke('spin');
      spinning = await spinsWithin(spinner, 2_000, mark);
    }
    expect(spinning, 'a worker spinning when caesar up is stopped').toBe(true);
    up.child.kill('SIGINT');
    const exit = await within(up.closed, 'caesar up to stop', 30_000);
    expect(exit).toEqual({ code: 0, signal: null });
    for (const pid of pids) expect(isAlive(pid), `pid ${pid}`).toBe(false);
  }, 60_000);
});

describe('a worker run by hand watches itself', () => {
  /**
   * A module whose worker spins once the test creates `spin-now` beside it (after the worker
   * said it serves, however slow the start): no supervisor will notice.
   */
  const SPINS_LATER = MODULE.replace(
    'export default {',
    "import { existsSync } from 'node:fs';\n" +
      "const go = new URL('./spin-now', import.meta.url);\n" +
      'setInterval(() => { if (existsSync(go)) for (;;) {} }, 50);\nexport default {',
  ).replace("name: 'spinner'", "name: 'spins_later'");

  test('its watchdog thread kills it within the timeout, saying why on stderr', async () => {
    await writeFile(join(dir, 'spins-later.js'), SPINS_LATER);
    await using nats = await startNats();
    const worker = startCli(
      [
        'legion',
        'serve-tool',
        '--module',
        './spins-later.js',
        '--nats-url',
        nats.url,
        '--log-level',
        'info',
      ],
      { CAESAR_WORKER__REQUIRE_GRANT: 'false', CAESAR_WATCHDOG__TIMEOUT: '2s' },
      { cwd: dir },
    );
    try {
      await waitFor(() => worker.stderr().includes('"msg":"ready"'), 'the worker to serve', 60_000);
      await writeFile(join(dir, 'spin-now'), '');
      const exit = await within(worker.closed, 'the stuck worker to be killed', 20_000);
      expect(exit).toEqual({ code: null, signal: 'SIGKILL' });
      const line = worker
        .stderr()
        .split('\n')
        .find((l) => l.includes('"component":"watchdog"'));
      expect(line).toBeDefined();
      const record = JSON.parse(line!) as { msg: string; silent_ms: number };
      expect(record.msg).toMatch(
        /^worker spins_later: the event loop has not run for \d+\.\d s \(watchdog timeout 2 s\): killing this process \(SIGKILL\)$/,
      );
      expect(record.silent_ms).toBeGreaterThanOrEqual(2000);
      expect(record.silent_ms).toBeLessThan(3100);
    } finally {
      worker.child.kill('SIGKILL');
    }
  }, 90_000);
});

describe('a worker under systemd', () => {
  /**
   * Beats until the test writes `systemd-spin-now` (after two beats, however slow the start), then
   * says so on stderr and spins.
   */
  const SPINS_ON_CUE = MODULE.replace(
    'export default {',
    "import { existsSync, writeSync } from 'node:fs';\n" +
      "const go = new URL('./systemd-spin-now', import.meta.url);\n" +
      "setInterval(() => { if (existsSync(go)) { writeSync(2, 'SPIN\\n'); for (;;) {} } }, 50);\nexport default {",
  ).replace("name: 'spinner'", "name: 'under_systemd'");

  test('says READY=1 once serving and WATCHDOG=1 from its event loop, which stops when the loop does', async () => {
    await writeFile(join(dir, 'under-systemd.js'), SPINS_ON_CUE);
    const socket = join(dir, 'notify.sock');
    const sink = spawn('python3', [SINK, socket], { stdio: ['ignore', 'pipe', 'inherit'] });
    const got: { line: string; at: number }[] = [];
    createInterface({ input: sink.stdout }).on('line', (line) =>
      got.push({ line, at: performance.now() }),
    );
    await waitFor(() => got.some((g) => g.line === 'listening'), 'the sink to listen', 10_000);
    await using nats = await startNats();
    let spunAt = Number.POSITIVE_INFINITY;
    const worker = startCli(
      ['legion', 'serve-tool', '--module', './under-systemd.js', '--nats-url', nats.url],
      {
        CAESAR_WORKER__REQUIRE_GRANT: 'false',
        CAESAR_WATCHDOG__TIMEOUT: '2s',
        NOTIFY_SOCKET: socket,
        WATCHDOG_USEC: '600000',
      },
      { cwd: dir },
    );
    worker.child.stderr!.on('data', (d: Buffer) => {
      if (d.toString().includes('SPIN')) spunAt = Math.min(spunAt, performance.now());
    });
    try {
      await waitFor(
        () => got.filter((g) => g.line === 'WATCHDOG=1').length >= 2,
        'two watchdog beats',
        30_000,
      );
      await writeFile(join(dir, 'systemd-spin-now'), '');
      const exit = await within(worker.closed, 'the worker to be killed by its watchdog', 30_000);
      expect(exit).toEqual({ code: null, signal: 'SIGKILL' });
      const lines = got.map((g) => g.line);
      expect(lines).toContain('READY=1');
      const beats = got.filter((g) => g.line === 'WATCHDOG=1');
      // every 0.3 s while the loop ran, none once it spun (one may be on its way)
      expect(beats.filter((b) => b.at < spunAt).length).toBeGreaterThanOrEqual(2);
      expect(beats.filter((b) => b.at > spunAt + 200).length).toBe(0);
    } finally {
      worker.child.kill('SIGKILL');
      sink.kill('SIGKILL');
    }
  }, 90_000);
});
