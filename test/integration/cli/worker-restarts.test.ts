import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  callBrain,
  pollBrain,
  startBrainProcess,
  startCalculatorProcess,
  stopProcess,
  type BrainProcess,
} from '../../helpers/brain.js';
import { runCli, type RunningCli } from '../../helpers/cli.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { waitFor } from '../../helpers/wait.js';

// Issue 28: a worker `caesar up` restarted is started with --restart-count, --restart-reason
// and --restart-at; it declares them in discovery, and `legion list` (text and --json), the
// registry and `GET /v1/tools` show them on its instance. A first start shows none.

const RESTARTED_AT = '2026-12-04T10:00:00.000Z';
const RESTARTS = { count: 3, last_reason: 'unresponsive', last_at: RESTARTED_AT };

interface ListedInstance {
  id: string;
  host: string;
  restarts?: unknown;
}

describe('a restarted worker', () => {
  let nats: TestNats;
  let dir: string;
  let brain: BrainProcess | undefined;
  const workers: RunningCli[] = [];

  beforeAll(async () => {
    nats = await startNats();
    dir = mkdtempSync(join(tmpdir(), 'caesar-worker-restarts-'));
    const policyFile = join(dir, 'policy.yaml');
    writeFileSync(policyFile, 'version: 1\nallowed_tools:\n  - tool: calculator\n');
    workers.push(
      startCalculatorProcess(nats.url, [
        '--host',
        'restarted',
        '--restart-count',
        '3',
        '--restart-reason',
        'unresponsive',
        '--restart-at',
        RESTARTED_AT,
      ]),
      startCalculatorProcess(nats.url, ['--host', 'first']),
    );
    brain = await startBrainProcess({ natsUrl: nats.url, dataDir: dir, policyFile });
  }, 60_000);

  afterAll(async () => {
    await stopProcess(brain?.proc);
    await Promise.all(workers.map((w) => stopProcess(w)));
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `legion list` against the test server, until both calculators are listed. */
  function list(json: boolean): Promise<string> {
    return waitFor(
      async (): Promise<string | undefined> => {
        const run = await runCli([
          'legion',
          'list',
          '--nats-url',
          nats.url,
          '--data-dir',
          join(dir, 'none'),
          '--wait',
          '500',
          ...(json ? ['--json'] : []),
        ]);
        if (run.code !== 0) throw new Error(`legion list exited ${run.code}: ${run.stderr}`);
        const both = json
          ? calculatorsIn(run.stdout).length === 2
          : run.stdout.includes('first') && run.stdout.includes('restarted');
        return both ? run.stdout : undefined;
      },
      'legion list to show both calculators',
      30_000,
      200,
    );
  }

  function calculatorsIn(json: string): ListedInstance[] {
    const tools = JSON.parse(json) as { tool: string; instances: ListedInstance[] }[];
    return tools.find((t) => t.tool === 'calculator')?.instances ?? [];
  }

  test('legion list --json carries the restarts on that instance only', async () => {
    const instances = calculatorsIn(await list(true));
    expect(instances.find((i) => i.host === 'restarted')?.restarts).toEqual(RESTARTS);
    expect(instances.find((i) => i.host === 'first')).not.toHaveProperty('restarts');
  }, 60_000);

  test('legion list shows them in its table and on a line for the instance', async () => {
    const stdout = await list(false);
    const header = stdout.split('\n').find((l) => l.startsWith('TOOL'));
    expect(header).toMatch(/PREFLIGHT\s+RESTARTS$/);
    const row = stdout.split('\n').find((l) => l.startsWith('calculator '));
    expect(row).toMatch(/\s3$/);
    expect(stdout).toMatch(
      new RegExp(
        `^calculator \\S+ on restarted: restarted 3x, last: unresponsive at ${RESTARTED_AT}$`,
        'm',
      ),
    );
    expect(stdout).not.toMatch(/on first: restarted/);
  }, 60_000);

  test('the brain lists them per instance in GET /v1/tools', async () => {
    const instances = await pollBrain(
      async (): Promise<ListedInstance[] | undefined> => {
        const res = await callBrain(brain!, 'GET', '/v1/tools');
        const calculator = (res.body as { name: string; instances: ListedInstance[] }[]).find?.(
          (t) => t.name === 'calculator',
        );
        return calculator?.instances.length === 2 ? calculator.instances : undefined;
      },
      'the brain to list both calculators',
      30_000,
    );
    expect(instances.find((i) => i.host === 'restarted')?.restarts).toEqual(RESTARTS);
    expect(instances.find((i) => i.host === 'first')).not.toHaveProperty('restarts');
  }, 60_000);

  test.each([
    ['--restart-count', '0', "option '--restart-count <n>' argument '0' is invalid"],
    ['--restart-reason', 'bored', "option '--restart-reason <reason>' argument 'bored' is invalid"],
    ['--restart-at', 'yesterday', "option '--restart-at <time>' argument 'yesterday' is invalid"],
  ])(
    '%s %s is a usage error naming the option',
    async (flag, value, message) => {
      const run = await runCli(['legion', 'serve-tool', 'calculator', flag, value]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(message);
    },
    30_000,
  );

  test('one restart flag without the others is a usage error', async () => {
    const run = await runCli(['legion', 'serve-tool', 'calculator', '--restart-count', '2']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--restart-count, --restart-reason and --restart-at go together');
  }, 30_000);
});
