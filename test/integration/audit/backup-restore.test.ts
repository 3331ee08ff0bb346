import { copyFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { AuditReader, openAuditLog, restoreAuditLog } from '../../../src/audit/index.js';
import {
  AuditBackupError,
  AuditIntegrityError,
  AuditLockedError,
} from '../../../src/audit/errors.js';
import { silentLogger } from '../../../src/log/index.js';
import { sql, tempDir, toolCalled } from '../../helpers/audit-fixtures.js';

const noTimer = { retention: { days: 0, intervalMs: 0 } };
const logger = silentLogger();

async function seeded(path: string, n: number, from = 0) {
  const log = openAuditLog({ path, ...noTimer });
  await Promise.all(Array.from({ length: n }, (_, i) => log.append(toolCalled(from + i))));
  return log;
}

describe('backup', () => {
  test('copies the live log while appends continue, and the copy verifies', async () => {
    using dir = tempDir();
    await using log = await seeded(dir.file('audit.db'), 500);
    const writing = Promise.all(
      Array.from({ length: 200 }, (_, i) => log.append(toolCalled(1000 + i))),
    );
    const result = await log.backup(dir.file('backup.db'));
    await writing;
    expect(result.verify).toMatchObject({ ok: true, firstSeq: 1 });
    expect(result.verify.ok && result.verify.rows).toBeGreaterThanOrEqual(500);
    using copy = AuditReader.open(dir.file('backup.db'));
    expect(copy.counts().total).toBe(result.verify.ok ? result.verify.rows : -1);
    expect(readdirSync(dir.path).filter((f) => f.includes('partial'))).toEqual([]);
  });

  test('refuses to overwrite an existing file', async () => {
    using dir = tempDir();
    await using log = await seeded(dir.file('audit.db'), 3);
    writeFileSync(dir.file('backup.db'), 'keep me');
    await expect(log.backup(dir.file('backup.db'))).rejects.toBeInstanceOf(AuditBackupError);
  });

  test('works from a read-only reader, as the CLI uses it', async () => {
    using dir = tempDir();
    const log = await seeded(dir.file('audit.db'), 10);
    await log.close();
    using reader = AuditReader.open(dir.file('audit.db'));
    expect((await reader.backup(dir.file('b.db'))).verify).toMatchObject({ ok: true, rows: 10 });
  });
});

describe('restore', () => {
  test('replaces the log with a verified backup and moves the old one aside', async () => {
    using dir = tempDir();
    const live = dir.file('audit.db');
    const first = await seeded(live, 5);
    await first.backup(dir.file('backup.db'));
    await Promise.all([6, 7, 8].map((i) => first.append(toolCalled(i))));
    await first.close();

    const result = await restoreAuditLog({ from: dir.file('backup.db'), to: live, logger });
    expect(result.verify).toMatchObject({ ok: true, rows: 5 });
    expect(result.previousMovedTo).toMatch(/audit\.db\.pre-restore-/);
    using restored = AuditReader.open(live);
    expect(restored.counts().total).toBe(5);
    using aside = AuditReader.open(result.previousMovedTo!);
    expect(aside.counts().total).toBe(8);

    // A writer continues the restored chain.
    await using log = openAuditLog({ path: live, ...noTimer });
    expect((await log.append(toolCalled(9))).seq).toBe(6);
    expect(await log.verify()).toMatchObject({ ok: true, rows: 6 });
  });

  test('handles a live log left with -wal and -shm files by a crashed writer', async () => {
    using dir = tempDir();
    const crashed = dir.file('crashed.db');
    const log = await seeded(dir.file('audit.db'), 4);
    await log.backup(dir.file('backup.db'));
    await Promise.all([10, 11].map((i) => log.append(toolCalled(i))));
    // Snapshot the files of a running writer: committed rows still live only in the -wal.
    for (const s of ['', '-wal', '-shm']) copyFileSync(dir.file(`audit.db${s}`), `${crashed}${s}`);
    await log.close();
    expect(existsSync(`${crashed}-wal`)).toBe(true);

    const result = await restoreAuditLog({ from: dir.file('backup.db'), to: crashed, logger });
    // No stale -wal/-shm of the old log is left beside the restored file.
    expect(existsSync(`${crashed}-wal`) || existsSync(`${crashed}-shm`)).toBe(false);
    using restored = AuditReader.open(crashed);
    expect(restored.counts().total).toBe(4);
    expect((await restored.verify()).ok).toBe(true);
    // The old log's WAL rows were checkpointed into the copy moved aside, not lost.
    using aside = AuditReader.open(result.previousMovedTo!);
    expect(aside.counts().total).toBe(6);
  });

  test('refuses a tampered backup and leaves the live log alone', async () => {
    using dir = tempDir();
    const live = dir.file('audit.db');
    const log = await seeded(live, 5);
    await log.backup(dir.file('backup.db'));
    await log.close();
    sql(
      dir.file('backup.db'),
      "DROP TRIGGER audit_events_no_update; UPDATE audit_events SET actor = 'x' WHERE seq = 2;",
    );
    const err = await restoreAuditLog({ from: dir.file('backup.db'), to: live, logger }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AuditIntegrityError);
    expect((err as Error).message).toMatch(/seq 2/);
    using reader = AuditReader.open(live);
    expect((await reader.verify()).ok).toBe(true);
    expect(readdirSync(dir.path).filter((f) => f.includes('pre-restore'))).toEqual([]);
  });

  test('refuses a corrupt backup before touching anything', async () => {
    using dir = tempDir();
    writeFileSync(dir.file('backup.db'), Buffer.alloc(8192, 7));
    await expect(
      restoreAuditLog({ from: dir.file('backup.db'), to: dir.file('audit.db'), logger }),
    ).rejects.toThrow();
    expect(existsSync(dir.file('audit.db'))).toBe(false);
  });

  test('refuses while a writer (the brain) holds the log', async () => {
    using dir = tempDir();
    const live = dir.file('audit.db');
    await using log = await seeded(live, 3);
    await log.backup(dir.file('backup.db'));
    await log.append(toolCalled(50));
    const err = await restoreAuditLog({ from: dir.file('backup.db'), to: live, logger }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AuditLockedError);
    expect((err as AuditLockedError).pid).toBe(process.pid);
    expect(log.counts().total).toBe(4);
    await expect(log.append(toolCalled(51))).resolves.toMatchObject({ seq: 5 });
  });
});
