import { describe, expect, test } from 'vitest';
import { restartAuditEvent } from '../../../../src/brain/audit-trail/restart-audit.js';

// Issue 28: a restart `caesar up` reports is one worker.restarted row; its tool column names
// the tool only when the part restarted is a worker.

const base = {
  reason: 'exited' as const,
  detail: 'exited (code 1)',
  count: 1,
  exit: { code: 1, signal: null },
  at: '2026-12-04T10:00:00.000Z',
  delay_ms: 1000,
};

describe('restartAuditEvent', () => {
  test.each([
    ['worker', 'calculator', 'calculator'],
    ['brain', 'brain', null],
    ['nats', 'nats', null],
  ] as const)('a %s restart: tool column %s', (kind, name, tool) => {
    const report = { ...base, kind, name };
    expect(restartAuditEvent(report)).toEqual({
      type: 'worker.restarted',
      actor: 'brain',
      outcome: 'error',
      tool,
      payload: report,
    });
  });
});
