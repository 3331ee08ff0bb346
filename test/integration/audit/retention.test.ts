import { describe, expect, test } from 'vitest';
import { openAuditLog } from '../../../src/audit/index.js';
import { AuditClosedError } from '../../../src/audit/errors.js';
import { AUDIT_EVENT_CATALOGUE } from '../../../src/audit/events.js';
import { sql, tempDir, toolCalled } from '../../helpers/audit-fixtures.js';

const DAY = 86_400_000;

/** A log whose clock the test moves: `at(day)` sets "now" to that many days after epoch+1y. */
function clockedLog(path: string, days = 90) {
  let now = Date.parse('2025-01-01T00:00:00.000Z');
  const log = openAuditLog({
    path,
    clock: () => new Date(now),
    retention: { days, intervalMs: 0 },
  });
  return { log, at: (day: number) => (now = Date.parse('2025-01-01T00:00:00.000Z') + day * DAY) };
}

describe('retention', () => {
  test('deletes rows older than the retention and appends audit.retention with the last deleted hash', async () => {
    using dir = tempDir();
    const { log, at } = clockedLog(dir.file('audit.db'));
    await using _ = log;
    const old = [];
    for (let i = 1; i <= 5; i++) old.push(await log.append(toolCalled(i)));
    at(50);
    for (let i = 6; i <= 8; i++) await log.append(toolCalled(i));
    at(100);
    const result = await log.sweepRetention();
    expect(result).toMatchObject({ deleted: 5, firstDeletedSeq: 1, lastDeletedSeq: 5 });
    expect(result.event?.seq).toBe(9);
    const [retention] = log.query({ types: ['audit.retention'] });
    expect(retention).toMatchObject({ actor: 'audit', outcome: 'ok' });
    expect(retention!.payload).toMatchObject({
      retention_days: 90,
      deleted: 5,
      first_deleted_seq: 1,
      last_deleted_seq: 5,
      last_deleted_hash: old[4]!.hash,
      cutoff: '2025-01-11T00:00:00.000Z',
    });
    expect(log.counts().total).toBe(4);
    expect(log.query({ decisionId: 'd-3' })).toEqual([]);
    expect(await log.verify()).toMatchObject({
      ok: true,
      firstSeq: 6,
      lastSeq: 9,
      anchor: 'retention',
    });
    // A head recorded before the sweep: the last deleted row is still checkable through the
    // audit.retention row; earlier ones are gone for good, and the check says so.
    expect(log.checkHead({ seq: 5, hash: old[4]!.hash })).toMatchObject({ ok: true });
    expect(log.checkHead({ seq: 5, hash: old[3]!.hash })).toMatchObject({
      ok: false,
      reason: 'rewritten',
    });
    expect(log.checkHead({ seq: 3, hash: old[2]!.hash })).toMatchObject({
      ok: false,
      reason: 'retired',
      detail: expect.stringMatching(/the log starts at seq 6.*record a newer head/),
    });
  });

  test("the audit.retention row the writer thread builds passes the catalogue's schema", async () => {
    // the thread builds the row without parsing it (it loads no zod, ADR 0048)
    using dir = tempDir();
    const { log, at } = clockedLog(dir.file('audit.db'));
    await using _ = log;
    await log.append(toolCalled(1));
    at(100);
    await log.sweepRetention();
    const [retention] = log.query({ types: ['audit.retention'] });
    const schema = AUDIT_EVENT_CATALOGUE['audit.retention'].payload;
    expect(schema.safeParse(retention!.payload).success).toBe(true);
    expect(AUDIT_EVENT_CATALOGUE['audit.retention'].outcomes).toContain(retention!.outcome);
  });

  test('the chain stays verifiable across several sweeps, including one that deletes every old row', async () => {
    using dir = tempDir();
    const { log, at } = clockedLog(dir.file('audit.db'), 10);
    await using _ = log;
    for (let round = 0; round < 4; round++) {
      at(round * 20);
      for (let i = 0; i < 3; i++) await log.append(toolCalled(round * 10 + i));
      at(round * 20 + 15);
      await log.sweepRetention();
      expect(await log.verify()).toMatchObject({ ok: true });
    }
    // Far future: everything but the newest retention row goes.
    at(1000);
    await log.sweepRetention();
    const report = await log.verify();
    expect(report).toMatchObject({ ok: true, rows: 1, anchor: 'retention' });
    await log.append(toolCalled(99));
    expect(await log.verify()).toMatchObject({ ok: true, rows: 2 });
  });

  test('a sweep with nothing to delete writes nothing', async () => {
    using dir = tempDir();
    const { log } = clockedLog(dir.file('audit.db'));
    await using _ = log;
    await log.append(toolCalled(1));
    expect(await log.sweepRetention()).toMatchObject({ deleted: 0 });
    expect(log.counts().total).toBe(1);
  });

  test('retention never deletes past a row newer than the cutoff (clock steps backwards)', async () => {
    using dir = tempDir();
    const { log, at } = clockedLog(dir.file('audit.db'));
    await using _ = log;
    at(0);
    await log.append(toolCalled(1));
    at(80);
    await log.append(toolCalled(2));
    at(0); // the clock stepped back
    await log.append(toolCalled(3));
    at(100);
    expect(await log.sweepRetention()).toMatchObject({ deleted: 1, lastDeletedSeq: 1 });
    expect(log.query({ decisionId: 'd-3' })).toHaveLength(1);
    expect((await log.verify()).ok).toBe(true);
  });

  test('days: 0 keeps everything', async () => {
    using dir = tempDir();
    const { log, at } = clockedLog(dir.file('audit.db'), 0);
    await using _ = log;
    await log.append(toolCalled(1));
    at(10_000);
    expect(await log.sweepRetention()).toMatchObject({ deleted: 0 });
    expect(log.counts().total).toBe(1);
  });

  test('the triggers still refuse deletes outside a sweep after a sweep ran', async () => {
    using dir = tempDir();
    const path = dir.file('audit.db');
    const { log, at } = clockedLog(path, 1);
    await log.append(toolCalled(1));
    at(5);
    await log.append(toolCalled(2));
    await log.sweepRetention();
    await log.close();
    expect(() => sql(path, 'DELETE FROM audit_events;')).toThrow(/only the retention sweep/);
    expect(sql(path, 'SELECT retention_open FROM audit_guard;').trim()).toBe('0');
    await expect(log.sweepRetention()).rejects.toThrow(AuditClosedError);
  });

  test('the background timer sweeps without being asked', async () => {
    using dir = tempDir();
    let now = Date.parse('2025-01-01T00:00:00.000Z');
    await using log = openAuditLog({
      path: dir.file('audit.db'),
      clock: () => new Date(now),
      retention: { days: 1, intervalMs: 20 },
    });
    await log.append(toolCalled(1));
    now += 3 * DAY;
    await expect.poll(() => log.counts().byType['audit.retention'] ?? 0, { timeout: 5000 }).toBe(1);
    expect(log.counts().total).toBe(1);
  });
});
