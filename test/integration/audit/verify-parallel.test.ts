import Database from 'better-sqlite3';
import { beforeEach, describe, expect, test } from 'vitest';
import { AuditReader, canonicalRow, chainHash, openAuditLog } from '../../../src/audit/index.js';
import { sql, tempDir, toolCalled, type TempDir } from '../../helpers/audit-fixtures.js';

/**
 * Verification split over worker threads, run for real: the threads load the compiled
 * verify-thread.js under dist/ (`npm test` builds it first). Ranges for 30 rows over 3
 * threads are seq 1-10, 11-20 and 21-30.
 */
const ROWS = 30;
const DROP_GUARDS = 'DROP TRIGGER audit_events_no_update; DROP TRIGGER audit_events_no_delete;';

let dir: TempDir;
let db: string;

beforeEach(async () => {
  dir = tempDir();
  db = dir.file('audit.db');
  const log = openAuditLog({ path: db, retention: { days: 0, intervalMs: 0 } });
  await Promise.all(Array.from({ length: ROWS }, (_, i) => log.append(toolCalled(i + 1))));
  await log.close();
  return () => dir[Symbol.dispose]();
});

async function verify(threads: number) {
  using reader = AuditReader.open(db);
  return reader.verify({ threads });
}

/** Rewrites rows from..ROWS as a forger with a script would: a fresh, self-consistent chain. */
function rechainFrom(from: number, forgedPrev: string): void {
  sql(db, DROP_GUARDS);
  const conn = new Database(db);
  try {
    let prev = forgedPrev;
    const rows = conn
      .prepare('SELECT * FROM audit_events WHERE seq >= ? ORDER BY seq')
      .all(from) as Array<Record<string, string | number | null>>;
    const update = conn.prepare(
      'UPDATE audit_events SET actor = ?, prev_hash = ?, hash = ? WHERE seq = ?',
    );
    for (const r of rows) {
      const row = {
        seq: r.seq as number,
        ts: r.ts as string,
        eventType: r.event_type as string,
        decisionId: r.decision_id as string | null,
        sessionId: r.session_id as string | null,
        tool: r.tool as string | null,
        actor: 'token:forger',
        outcome: r.outcome as string,
        payload: r.payload as string,
      };
      const hash = chainHash(prev, canonicalRow(row));
      update.run(row.actor, prev, hash, row.seq);
      prev = hash;
    }
  } finally {
    conn.close();
  }
}

describe('parallel verification', () => {
  test('an untouched log verifies on three threads with the same head as on one', async () => {
    const one = await verify(1);
    const three = await verify(3);
    expect(three).toMatchObject({ ok: true, rows: ROWS, threads: 3, firstSeq: 1, lastSeq: ROWS });
    expect(one).toMatchObject({ ok: true, threads: 1 });
    expect(three.ok && one.ok && three.headHash === one.headHash).toBe(true);
  });

  test('a forged chain that is consistent inside its thread ranges is caught at the seam', async () => {
    rechainFrom(11, 'f'.repeat(64));
    expect(await verify(3)).toMatchObject({ ok: false, badSeq: 11, reason: 'prev_hash_mismatch' });
  });

  test.each([
    [
      'one changed payload byte',
      `UPDATE audit_events SET payload = replace(payload, '25 * 2', '26 * 2') WHERE seq = 25`,
      25,
    ],
    ['the first row of a range deleted', 'DELETE FROM audit_events WHERE seq = 21', 21],
    [
      'rows swapped across a range boundary',
      'UPDATE audit_events SET seq = -1 WHERE seq = 10; UPDATE audit_events SET seq = 10 WHERE seq = 11; UPDATE audit_events SET seq = 11 WHERE seq = -1',
      10,
    ],
    ['the newest row deleted from the last range', `DELETE FROM audit_events WHERE seq = 29`, 29],
  ])('%s is reported at its seq', async (_name, tamper, seq) => {
    sql(db, `${DROP_GUARDS} ${tamper}`);
    expect(await verify(3)).toMatchObject({ ok: false, badSeq: seq });
  });
});
