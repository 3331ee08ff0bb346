import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { JobView } from '../../../../src/brain/api/index.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from '../../../../src/cli/brain-client/command.js';
import { runJobsCancel, runJobsList, runJobsShow } from '../../../../src/cli/commands/jobs.run.js';
import {
  httpError,
  stackDir,
  startBrainStub,
  type BrainStub,
  type StackDir,
} from './brain-stub.js';

/**
 * `caesar jobs list|show|cancel` (ADR 0098) in-process, against a loopback server that speaks
 * the API contract (`GET /v1/jobs`, `GET /v1/jobs/{id}`, `POST /v1/jobs/{id}/cancel`), the
 * commands docs/legion.md shows.
 */

let stub: BrainStub;
let stack: StackDir;
beforeAll(async () => {
  stub = await startBrainStub();
  stack = await stackDir(stub.url);
});
afterAll(async () => {
  await stack[Symbol.asyncDispose]();
  await stub[Symbol.asyncDispose]();
});
beforeEach(() => stub.reset());

const flags = () => ({ dataDir: stack.dataDir });
function io() {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (l: string) => stdout.push(l), err: (l: string) => stderr.push(l) };
}

const running: JobView = {
  id: 'job-1',
  tool: 'transcode',
  status: 'running',
  delivery: 'at_least_once',
  actor: 'operator',
  submitted_at: '2026-12-06T20:52:47.491Z',
  started_at: '2026-12-06T20:52:49.392Z',
  attempt: 2,
  progress: { fraction: 0.4, message: 'frame 1200 of 3000', at: '2026-12-06T20:53:31.397Z' },
  worker: { id: 'w', host: 'gpu-box' },
  stream_seq: 17,
};

describe('caesar jobs', () => {
  test('list prints one line per job with its progress; --limit is passed on', async () => {
    stub.route(/^GET \/v1\/jobs/, () => ({ status: 200, body: { jobs: [running] } }));
    const out = io();
    expect(await runJobsList({ ...flags(), limit: '5' }, out)).toBe(EXIT_OK);
    expect(stub.requests[0]).toMatchObject({ method: 'GET', url: '/v1/jobs?limit=5' });
    expect(out.stdout).toEqual(['job-1  transcode  running  40% frame 1200 of 3000']);
    expect(await runJobsList({ ...flags(), limit: '0' }, io())).toBe(EXIT_USAGE);
  });

  test('show prints where the job is, its host and attempt; an unknown id is exit 1', async () => {
    stub.route(/^GET \/v1\/jobs\/job-1$/, () => ({ status: 200, body: running }));
    stub.route(/^GET \/v1\/jobs\/nope$/, () => httpError(404, 'job_not_found', 'no job "nope"'));
    const out = io();
    expect(await runJobsShow('job-1', flags(), out)).toBe(EXIT_OK);
    expect(out.stdout).toEqual([
      'job job-1: transcode, running',
      'submitted 2026-12-06T20:52:47.491Z by operator; runs at least once',
      'started 2026-12-06T20:52:49.392Z on gpu-box (attempt 2)',
      'progress: 40% frame 1200 of 3000',
    ]);
    const missing = io();
    expect(await runJobsShow('nope', flags(), missing)).toBe(EXIT_FAILED);
    expect(missing.stderr).toEqual(['caesar jobs show: no job nope']);
    expect(await runJobsShow('a.b', flags(), io())).toBe(EXIT_USAGE);
  });

  test('cancel posts the cancel and prints the job as it ended', async () => {
    const cancelled: JobView = {
      ...running,
      status: 'cancelled',
      ended_at: '2026-12-06T20:54:00.000Z',
      error: {
        code: 'job_cancelled',
        message: 'job job-1 was cancelled by operator',
        retryable: false,
      },
    };
    stub.route(/^POST \/v1\/jobs\/job-1\/cancel$/, () => ({ status: 200, body: cancelled }));
    const out = io();
    expect(await runJobsCancel('job-1', { ...flags(), json: true }, out)).toBe(EXIT_OK);
    expect(stub.requests[0]).toMatchObject({ method: 'POST', url: '/v1/jobs/job-1/cancel' });
    expect(JSON.parse(out.stdout[0]!)).toMatchObject({ status: 'cancelled' });
  });
});
