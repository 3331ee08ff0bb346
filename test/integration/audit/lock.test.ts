import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { describe, expect, test } from 'vitest';
import { openAuditLog } from '../../../src/audit/index.js';
import { AuditLockedError } from '../../../src/audit/errors.js';
import { lockPathFor } from '../../../src/audit/lock.js';
import { tempDir, toolCalled } from '../../helpers/audit-fixtures.js';

const noTimer = { retention: { days: 0, intervalMs: 0 } };

/** A pid that certainly belonged to a process that has exited. */
function deadPid(): number {
  const res = spawnSync(process.execPath, ['-e', '0']);
  return res.pid;
}

describe('writer lock', () => {
  test('a second writer on the same file is refused with the holder named', async () => {
    using dir = tempDir();
    const path = dir.file('audit.db');
    await using log = openAuditLog({ path, ...noTimer });
    expect(() => openAuditLog({ path, ...noTimer })).toThrow(AuditLockedError);
    expect(() => openAuditLog({ path, ...noTimer })).toThrow(`pid ${process.pid}`);
    await expect(log.append(toolCalled(1))).resolves.toMatchObject({ seq: 1 });
  });

  test('the lock file holds pid and host, and is removed on close', async () => {
    using dir = tempDir();
    const path = dir.file('audit.db');
    const log = openAuditLog({ path, ...noTimer });
    expect(JSON.parse(readFileSync(lockPathFor(path), 'utf8'))).toMatchObject({
      pid: process.pid,
      host: hostname(),
    });
    await log.close();
    expect(existsSync(lockPathFor(path))).toBe(false);
  });

  test('a stale lock left by a dead process on this host is taken over', async () => {
    using dir = tempDir();
    const path = dir.file('audit.db');
    writeFileSync(
      lockPathFor(path),
      JSON.stringify({ pid: deadPid(), host: hostname(), since: 'x' }),
    );
    await using log = openAuditLog({ path, ...noTimer });
    await expect(log.append(toolCalled(1))).resolves.toMatchObject({ seq: 1 });
  });

  test.each([
    ['another host', { pid: 1, host: 'elsewhere.example', since: 'x' }],
    ['an unreadable lock file', 'garbage'],
  ])('a lock from %s is never guessed to be stale', (_name, content) => {
    using dir = tempDir();
    const path = dir.file('audit.db');
    writeFileSync(
      lockPathFor(path),
      typeof content === 'string' ? content : JSON.stringify(content),
    );
    expect(() => openAuditLog({ path, ...noTimer })).toThrow(AuditLockedError);
  });
});
