import { describe, expect, it } from 'vitest';
import type { CallGate } from '../../../../src/brain/agent/index.js';
import type { JobView, ToolCallReport } from '../../../../src/brain/api/index.js';
import { JobStatusGate, jobStatusTool } from '../../../../src/brain/capabilities/job-status.js';

const job: JobView = {
  id: 'j1',
  tool: 'slow_job',
  status: 'finished',
  delivery: 'at_most_once',
  actor: 'kitchen',
  submitted_at: '2026-12-06T20:00:00.000Z',
  result: { frames: 3000 },
  stream_seq: 1,
};

const passed: string[] = [];
const inner: CallGate = {
  invoke: (tool) => {
    passed.push(tool);
    return Promise.resolve({
      tool,
      outcome: 'ok',
      decision_id: 'x',
      duration_ms: 0,
    } as ToolCallReport);
  },
  rejectStopped: () => Promise.resolve(undefined),
};
const gate = new JobStatusGate(inner, {
  job: (id) => (id === job.id ? job : undefined),
  specOf: () => null,
});
const model = { kind: 'model', read: [] } as never;

describe('job_status, the planner action (ADR 0098)', () => {
  it("answers a model about its own token's job: status and result, labelled as the tool's output", async () => {
    const r = await gate.invoke('job_status', { job_id: 'j1' }, { actor: 'kitchen' }, model);
    expect(r.outcome).toBe('ok');
    expect(r.result).toEqual({
      job_id: 'j1',
      tool: 'slow_job',
      status: 'finished',
      result: { frames: 3000 },
    });
    expect(r.label?.trust).toBe('untrusted');
  });

  it("another token's job, an unknown id and bad arguments are refused alike, never dispatched", async () => {
    const other = await gate.invoke('job_status', { job_id: 'j1' }, { actor: 'tablet' }, model);
    const unknown = await gate.invoke(
      'job_status',
      { job_id: 'nope' },
      { actor: 'kitchen' },
      model,
    );
    expect(other.outcome).toBe('failed');
    expect(other.reason).toBe(unknown.reason?.replace('nope', 'j1'));
    const bad = await gate.invoke('job_status', { id: 'j1' }, { actor: 'kitchen' }, model);
    expect(bad.reason).toMatch(/not \{job_id\}/);
    expect(passed).toEqual([]);
  });

  it('any other call, or a call not from a model, goes on to the gateway', async () => {
    await gate.invoke('calculator', { expression: '1+1' }, { actor: 'kitchen' }, model);
    await gate.invoke('job_status', { job_id: 'j1' }, { actor: 'kitchen' });
    expect(passed).toEqual(['calculator', 'job_status']);
    expect(jobStatusTool().name).toBe('job_status');
  });
});
