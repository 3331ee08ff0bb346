import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { openAuditLog } from '../../../src/audit/index.js';
import { compiledScriptUrl } from '../../../src/process/index.js';
import { tempDir, toolCalled } from '../../helpers/audit-fixtures.js';

/**
 * An audit log whose files turn read-only. The files are made immutable for real
 * (`chattr +i`, which stops root too), in a child process, so a SIGBUS from SQLite's memory
 * map of `-shm` would kill the child, not the test. Needs root and a filesystem with
 * immutable files (ext4, xfs, btrfs): the CI machine's. Not skipped elsewhere: it fails,
 * saying why.
 */

interface Step {
  step: string;
  ok: boolean;
  code?: string;
  message?: string;
  seq?: number;
  problem: string | null;
}

function runChild(db: string, mode: 'running' | 'at-open') {
  const script = fileURLToPath(
    compiledScriptUrl(import.meta.url, '../../fixtures/audit-readonly-child.js'),
  );
  const res = spawnSync(process.execPath, [script, db, mode], { encoding: 'utf8' });
  const steps = res.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Step);
  return { status: res.status, signal: res.signal, stderr: res.stderr, steps };
}

describe('an audit log that turns read-only', () => {
  test('made immutable while open: appends fail typed, no SIGBUS, and recover in place', () => {
    using dir = tempDir();
    const db = dir.file('audit.db');
    const child = runChild(db, 'running');
    expect(child.signal, `child killed: ${child.stderr}`).toBeNull();
    expect(child.status, child.stderr).toBe(0);
    const [before, immutable, writable, verify] = child.steps;
    expect(before).toMatchObject({ step: 'before', ok: true, seq: 1, problem: null });
    expect(immutable).toMatchObject({ step: 'immutable', ok: false, code: 'audit_write_failed' });
    expect(immutable?.message).toMatch(/audit\.db(-wal|-shm)? is not writable \(EPERM\)/);
    expect(immutable?.problem).toMatch(/not writable \(EPERM\)/);
    expect(writable).toMatchObject({ step: 'writable', ok: true, seq: 2, problem: null });
    expect(verify).toMatchObject({ step: 'verify', ok: true });
  });

  test('immutable when opened: the problem is known at open, and the log recovers', async () => {
    using dir = tempDir();
    const db = dir.file('audit.db');
    const first = openAuditLog({ path: db, retention: { days: 0, intervalMs: 0 } });
    await first.append(toolCalled(1));
    await first.close();
    const child = runChild(db, 'at-open');
    expect(child.signal, `child killed: ${child.stderr}`).toBeNull();
    expect(child.status, child.stderr).toBe(0);
    const [immutable, writable, verify] = child.steps;
    expect(immutable).toMatchObject({ step: 'immutable', ok: false, code: 'audit_write_failed' });
    expect(immutable?.problem).toMatch(/audit\.db is not writable \(EPERM\)/);
    expect(writable).toMatchObject({ step: 'writable', ok: true, seq: 2, problem: null });
    expect(verify).toMatchObject({ step: 'verify', ok: true });
  });
});
