import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { assertBuilt, CLI, startCli, type RunningCli } from '../../helpers/cli.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { waitFor } from '../../helpers/wait.js';

// Issue 29, point 9: hand-run parts printed raw JSON logs on a terminal, and the `caesar up`
// terminal printed a JSON `policy.reload_failed` record before the brain's readable line.

/** A readable log line: `[hh:mm:ss.mmm] LEVEL: component: message …`. */
const READABLE = /^\[\d\d:\d\d:\d\d\.\d{3}\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL): /;
/** Any JSON record, wherever it starts on a line. */
const JSON_RECORD = /\{"level":\d+/;

/** Each spawn of the CLI takes about a second of CPU, several on a loaded machine. */
const SPAWNING_TEST_MS = 120_000;

/** A shell word: `it's` as `'it'\''s'`. */
const quoted = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`;

/**
 * Runs `caesar <args>` on a pseudo-terminal (util-linux `script`): its stderr is a TTY, as
 * for a person who typed the command. Resolves with what the terminal got once a line
 * matches `until`; the command is stopped then.
 */
async function onTerminal(args: string[], env: NodeJS.ProcessEnv, until: RegExp): Promise<string> {
  const command = [process.execPath, CLI, ...args].map(quoted).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const closed = new Promise((resolve) => child.once('close', resolve));
  try {
    await waitFor(() => until.test(out), `a line matching ${until} on the terminal`, 60_000);
  } finally {
    child.kill('SIGTERM');
    await closed;
  }
  return out;
}

describe('a hand-run part on a terminal', { timeout: SPAWNING_TEST_MS }, () => {
  let nats: TestNats;
  beforeAll(async () => {
    assertBuilt();
    nats = await startNats();
  });
  afterAll(async () => {
    await nats?.stop();
  });

  const serveTool = () => [
    'legion',
    'serve-tool',
    'calculator',
    '--nats-url',
    nats.url,
    '--log-level',
    'info',
  ];
  const env = { CAESAR_WORKER__REQUIRE_GRANT: 'false' };

  test('`caesar legion serve-tool` prints one readable line per event, no JSON', async () => {
    const out = await onTerminal(serveTool(), env, /worker: ready/);
    const lines = out.split(/\r?\n/).filter((l) => l !== '');
    expect(out).not.toMatch(JSON_RECORD);
    expect(lines.find((l) => l.includes('worker: ready'))).toMatch(READABLE);
    expect(lines.find((l) => l.includes('worker: serving tools'))).toMatch(
      /^\[[\d:.]+\] INFO: worker: serving tools \{"tools":\["calculator"\],"host":".+"\}$/,
    );
  });

  test('piped, the same command writes JSON records', async () => {
    const worker = startCli(serveTool(), env);
    try {
      await waitFor(() => worker.stderr().includes('"msg":"ready"'), 'the ready record', 60_000);
    } finally {
      worker.child.kill('SIGTERM');
      await worker.closed;
    }
    const lines = worker
      .stderr()
      .split('\n')
      .filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ component: 'worker' });
  });

  test('log.format json keeps JSON on a terminal', async () => {
    const out = await onTerminal(serveTool(), { ...env, CAESAR_LOG__FORMAT: 'json' }, /"ready"/);
    expect(out).toMatch(/\{"level":30,.*"msg":"ready"\}/);
    expect(out).not.toMatch(/INFO: worker/);
  });
});

describe("caesar up's terminal", { timeout: SPAWNING_TEST_MS }, () => {
  let dir: string;
  let up: RunningCli | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caesar-readable-logs-'));
  });
  afterAll(async () => {
    if (up && up.child.exitCode === null) {
      up.child.kill('SIGINT');
      await up.closed;
    }
    await rm(dir, { recursive: true, force: true });
  });

  test('a refused policy edit shows as its readable line, and no JSON record', async () => {
    const policy = join(dir, 'policy.yaml');
    await writeFile(policy, 'version: 1\nallowed_tools:\n  - calculator\n');
    // log.format pretty stands in for a terminal (auto picks it when stderr is a TTY)
    up = startCli(['up', '--tools', 'calculator', '--nats-port', '0', '--api-port', '0'], {
      CAESAR_POLICY__FILE: policy,
      CAESAR_DATA_DIR: join(dir, 'var'),
      CAESAR_LOG__FORMAT: 'pretty',
    });
    await up.waitForLine(/^ready: /, 90_000);
    await writeFile(policy, 'version: 1\nallowed_tools:\n  - tool: [not, a, name]\n');
    await waitFor(
      () => up!.stderr().includes('policy: NOT loaded'),
      "the brain's readable line for the refused edit",
      60_000,
    );
    const stderr = up.stderr();
    const refused = stderr.split('\n').filter((l) => l.includes('policy'));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatch(/^\[brain\] policy: NOT loaded: .*policy\.yaml:3:/);
    expect(stderr).not.toMatch(JSON_RECORD);
  });
});
