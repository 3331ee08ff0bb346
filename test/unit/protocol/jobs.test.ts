import { describe, expect, it } from 'vitest';
import {
  brainPermissions,
  JobEventSchema,
  jobConsumer,
  jobDelivery,
  jobInboxPrefix,
  jobSubject,
  jsApi,
  mayRunAsJob,
  runsAsJob,
  workerPermissions,
} from '../../../src/protocol/index.js';

const spec = (locality: 'local' | 'remote_job', expected?: number) => ({
  execution_locality: locality,
  resource_requirements: {
    cpu: 'low' as const,
    memory_mb: 16,
    network: false,
    ...(expected === undefined ? {} : { expected_wall_clock_ms: expected }),
  },
});

describe('job subjects (ADR 0098)', () => {
  it('are built from checked tokens, with wildcards for permissions', () => {
    expect(jobSubject('submit', 'slow_job')).toBe('caesar.job.submit.slow_job');
    expect(jobSubject('event', 'slow_job', 'abc-1')).toBe('caesar.job.event.slow_job.abc-1');
    expect(jobSubject('cancel', 'slow_job', '*')).toBe('caesar.job.cancel.slow_job.*');
    expect(jobSubject('heartbeat', '*')).toBe('caesar.job.heartbeat.>');
    expect(jobSubject('submit', '*')).toBe('caesar.job.submit.*');
    expect(jobConsumer('slow_job')).toBe('tool-slow_job');
    expect(jobInboxPrefix('slow_job')).toBe('_INBOX.caesar-job.slow_job');
    expect(() => jobSubject('event', 'slow_job', 'a.b')).toThrow(/job id/);
    expect(() => jobSubject('submit', 'Bad>')).toThrow(/tool name/);
    expect(() => jobSubject('submit', 'ha.call')).toThrow(/tool name/);
  });
});

describe('job permissions', () => {
  it('a worker pulls and acks only its own tool consumer, and speaks only of its own jobs', () => {
    const p = workerPermissions(['slow_job']);
    expect(p.publish.allow).toEqual(
      expect.arrayContaining([
        '$JS.API.CONSUMER.MSG.NEXT.caesar-jobs.tool-slow_job',
        '$JS.ACK.caesar-jobs.tool-slow_job.>',
        'caesar.job.event.slow_job.*',
        'caesar.job.heartbeat.slow_job.*',
      ]),
    );
    expect(p.subscribe.allow).toEqual(
      expect.arrayContaining(['_INBOX.caesar-job.slow_job.>', 'caesar.job.cancel.slow_job.*']),
    );
    // nothing that submits, cancels, or reaches the rest of the JetStream API
    const all = [...p.publish.allow, ...p.subscribe.allow];
    expect(all.some((s) => s.startsWith('caesar.job.submit'))).toBe(false);
    expect(all.some((s) => s.startsWith('caesar.job.cancel') && p.publish.allow.includes(s))).toBe(
      false,
    );
    expect(all.filter((s) => s.startsWith('$JS.API')).length).toBe(1);
  });

  it('the brain submits, cancels, runs the JetStream API and reads heartbeats', () => {
    const p = brainPermissions('brain');
    expect(p.publish.allow).toEqual(
      expect.arrayContaining([
        'caesar.job.submit.*',
        'caesar.job.cancel.>',
        jsApi.any,
        '$JS.ACK.caesar-job-events.brain.>',
      ]),
    );
    expect(p.subscribe.allow).toContain('caesar.job.heartbeat.>');
  });
});

describe('which calls are jobs', () => {
  it('remote_job, or a typical call longer than the call deadline', () => {
    expect(runsAsJob(spec('remote_job'), 30_000)).toBe(true);
    expect(runsAsJob(spec('local', 60_000), 30_000)).toBe(true);
    expect(runsAsJob(spec('local', 20_000), 30_000)).toBe(false);
    expect(runsAsJob(spec('local'), 30_000)).toBe(false);
    expect(mayRunAsJob({ ...spec('local', 1000) })).toBe(true);
    expect(mayRunAsJob({ ...spec('local') })).toBe(false);
    expect(jobDelivery({})).toBe('at_most_once');
    expect(jobDelivery({ job: { delivery: 'at_least_once' } })).toBe('at_least_once');
  });

  it('a worker event is strict about its kind and its bounds', () => {
    const base = {
      v: 1,
      job_id: 'a',
      tool: 't',
      worker: { id: 'w', host: 'h' },
      attempt: 1,
      at: 1,
    };
    expect(JobEventSchema.safeParse({ ...base, kind: 'started' }).success).toBe(true);
    const long = { ...base, kind: 'progress', progress: { message: 'x'.repeat(201) } };
    expect(JobEventSchema.safeParse(long).success).toBe(false);
    expect(JobEventSchema.safeParse({ ...base, kind: 'exploded' }).success).toBe(false);
  });
});
