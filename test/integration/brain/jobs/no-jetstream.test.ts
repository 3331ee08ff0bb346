import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAuditLog } from '../../../../src/audit/index.js';
import { startJobs } from '../../../../src/brain/jobs/index.js';
import { silentLogger } from '../../../../src/log/index.js';
import { startNats } from '../../../helpers/nats.js';

describe('a brain on a nats-server without JetStream (ADR 0098)', () => {
  it('starts at once with jobs off, and a submission fails saying why', async () => {
    await using nats = await startNats();
    const dir = mkdtempSync(join(tmpdir(), 'caesar-nojs-'));
    const audit = openAuditLog({ path: join(dir, 'audit.db') });
    try {
      const t0 = Date.now();
      const jobs = await startJobs(await nats.connect(), audit, undefined, silentLogger());
      expect(Date.now() - t0).toBeLessThan(1500);
      const submission = {
        jobId: 'j',
        tool: 'slow_job',
        input: {},
        deadline: Date.now() + 1000,
        delivery: 'at_most_once' as const,
        policySha256: 'x',
        actor: 'a',
        sessionId: null,
      };
      await expect(jobs.submit(submission)).rejects.toThrow(/jobs are off/);
      expect(jobs.list()).toEqual([]);
      await jobs.close();
    } finally {
      await audit.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
