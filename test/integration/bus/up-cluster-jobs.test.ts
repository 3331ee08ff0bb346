import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import type { JobView } from '../../../src/brain/api/index.js';
import { startCli, type RunningCli } from '../../helpers/cli.js';
import { natsServerPid } from '../../helpers/nats.js';
import { firstToken } from '../../helpers/tokens.js';
import { waitFor } from '../../helpers/wait.js';

// ADR 0101: `caesar up --cluster 3` with a job tool (a plain module, as an operator writes
// one): the job is submitted through the brain's API, a nats-server is SIGKILLed while the job
// runs, the keeper restarts it, and the job ends once.

let dir: string;
let up: RunningCli | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-up-cluster-jobs-'));
});
afterEach(async () => {
  if (up && up.child.exitCode === null) up.child.kill('SIGKILL');
  up = undefined;
  await rm(dir, { recursive: true, force: true });
});

const COUNTDOWN = `const object = (properties) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
export default {
  name: 'countdown',
  version: '1.0.0',
  title: 'Countdown',
  description: 'Counts down for a while, as a job. Example: {"seconds": 3}.',
  tags: ['test'],
  executionLocality: 'remote_job',
  resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
  job: { delivery: 'at_least_once' },
  timeoutMs: 120000,
  maxConcurrency: 1,
  input: object({ seconds: { type: 'integer', minimum: 0, maximum: 60 } }),
  output: object({ counted: { type: 'integer' } }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  handler: async ({ seconds }, ctx) => {
    for (let i = 0; i < seconds; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      ctx.progress?.({ fraction: (i + 1) / seconds, message: \`\${i + 1} of \${seconds}\` });
    }
    return { counted: seconds };
  },
};
`;

test('caesar up --cluster 3 runs a job tool: a job ends once though a nats-server is SIGKILLed while it runs', async () => {
  await writeFile(join(dir, 'countdown.mjs'), COUNTDOWN);
  await writeFile(
    join(dir, 'caesar.yaml'),
    'worker:\n  modules: [./countdown.mjs]\npolicy:\n  file: ./policy.yaml\n',
  );
  await writeFile(join(dir, 'policy.yaml'), 'version: 1\nallowed_tools:\n  - tool: countdown\n');
  up = startCli(
    [
      'up',
      '--cluster',
      '3',
      '--nats-port',
      '0',
      '--api-port',
      '0',
      '--tools',
      'calculator',
      '--data-dir',
      join(dir, 'data'),
    ],
    { CAESAR_LOG__LEVEL: 'warn' },
    { cwd: dir },
  );
  await up.waitForLine(/^ready: /, 60_000);
  const servers = [
    ...up.lines
      .join('\n')
      .matchAll(/^nats-server (\d) (nats:\/\/\S+)\s+\(pid (\d+), .*JetStream 3 replica\(s\)\)$/gm),
  ].map((m) => ({ url: m[2]!, pid: Number(m[3]) }));
  expect(servers).toHaveLength(3);

  const runtime = JSON.parse(await readFile(join(dir, 'data', 'runtime.json'), 'utf8')) as {
    api_url: string;
    token_file: string;
  };
  const token = await firstToken(runtime.token_file);
  const api = async <T>(path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${runtime.api_url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await res.json()) as T;
  };
  const submitted = await api<{ outcome: string; decision_id: string }>(
    '/v1/tools/countdown/invoke',
    { input: { seconds: 5 } },
  );
  expect(submitted.outcome).toBe('ok');
  const job = () => api<JobView>(`/v1/jobs/${submitted.decision_id}`);
  await waitFor(async () => (await job()).progress, 'the job to report progress', 30_000, 100);

  const victim = servers[0]!;
  process.kill(natsServerPid(victim.pid), 'SIGKILL');
  await up.waitForLine(/^nats-server 1 exited \(SIGKILL\); restarting/, 15_000);
  await up.waitForLine(/^nats-server 1 \S+\s+\(pid \d+\) restarted/, 15_000);

  const done = await waitFor(
    async () => {
      const v = await job();
      return v.status === 'finished' || v.status === 'failed' ? v : undefined;
    },
    'the job to end',
    60_000,
    200,
  );
  expect(done).toMatchObject({ status: 'finished', result: { counted: 5 }, attempt: 1 });

  up.child.kill('SIGINT');
  expect(await up.exited).toEqual({ code: 0, signal: null });
}, 150_000);
