import { describe, expect, test } from 'vitest';
import { pendingLines } from '../../../../src/cli/brain-client/held-call-lines.js';
import { base, byModel } from '../../../fixtures/held-calls.js';

describe('pendingLines', () => {
  test('one entry of `caesar confirm`: id, tool, expiry, what runs, why, and the three commands', () => {
    const lines = pendingLines(byModel, { dataDir: '/srv/caesar/var' });
    expect(lines.slice(0, 3)).toEqual([
      'c_4f2a9b  call_service  expires 2026-11-30T12:02:00.000Z',
      '  would run: call lock.unlock on lock.front_door',
      '  asked by: a model, in a turn opened by token `kids-tablet` (session s-1)',
    ]);
    expect(lines.slice(-3)).toEqual([
      '  approve: caesar confirm c_4f2a9b --data-dir /srv/caesar/var',
      '  reject:  caesar reject c_4f2a9b --data-dir /srv/caesar/var',
      '  reject and stop the model: caesar reject c_4f2a9b --stop-turn --data-dir /srv/caesar/var',
    ]);
  });

  test('no stop command for a call no model asked for', () => {
    const lines = pendingLines({ ...base, asked_by: { kind: 'api', actor: 'operator' } }, {});
    expect(lines.join('\n')).not.toContain('--stop-turn');
  });
});
