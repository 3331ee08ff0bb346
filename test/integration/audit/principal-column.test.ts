import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import {
  AuditReader,
  canonicalJson,
  canonicalRow,
  chainHash,
  GENESIS_HASH,
  openAuditLog,
} from '../../../src/audit/index.js';
import { AUDIT_APPLICATION_ID, AUDIT_SCHEMA_VERSION } from '../../../src/audit/schema.js';
import { runAuditVerify } from '../../../src/cli/commands/audit/verify.run.js';
import { sql, tempDir, toolCalled } from '../../helpers/audit-fixtures.js';

// ADR 0096: schema version 2 adds `principal`. A log written by version 1 must migrate and
// still verify; its rows keep their hashes because a NULL principal is left out of the
// canonical row.

const noTimer = { retention: { days: 0, intervalMs: 0 } };

/** The version-1 table, as CAESAR before issue 32 created it (no principal column). */
const V1_TABLE = `
CREATE TABLE audit_events (
  seq INTEGER PRIMARY KEY, ts TEXT NOT NULL, event_type TEXT NOT NULL, decision_id TEXT,
  session_id TEXT, tool TEXT, actor TEXT NOT NULL, outcome TEXT NOT NULL, payload TEXT NOT NULL,
  prev_hash TEXT NOT NULL, hash TEXT NOT NULL
) STRICT;
CREATE INDEX audit_events_ts ON audit_events (ts);
CREATE INDEX audit_events_event_type ON audit_events (event_type);
CREATE INDEX audit_events_decision_id ON audit_events (decision_id) WHERE decision_id IS NOT NULL;
CREATE INDEX audit_events_tool ON audit_events (tool) WHERE tool IS NOT NULL;
CREATE INDEX audit_events_session_id ON audit_events (session_id) WHERE session_id IS NOT NULL;
CREATE TABLE audit_guard (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  retention_open INTEGER NOT NULL CHECK (retention_open IN (0, 1))
) STRICT;
INSERT INTO audit_guard (id, retention_open) VALUES (1, 0);
`;

/** A version-1 log with `n` chained rows, hashed the way version 1 hashed them. */
function versionOneLog(path: string, n: number): string[] {
  const db = new Database(path);
  const hashes: string[] = [];
  try {
    db.exec(V1_TABLE);
    db.pragma(`application_id = ${AUDIT_APPLICATION_ID}`);
    db.pragma('user_version = 1');
    const insert = db.prepare('INSERT INTO audit_events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    let prev = GENESIS_HASH;
    for (let seq = 1; seq <= n; seq++) {
      const row = {
        seq,
        ts: `2026-11-0${seq}T10:00:00.000Z`,
        eventType: 'tool.called',
        decisionId: `d-${seq}`,
        sessionId: null,
        tool: 'calculator',
        actor: 'operator',
        outcome: 'allowed',
        payload: canonicalJson({ input: { expression: `${seq} * 2` } }),
      };
      const hash = chainHash(prev, canonicalRow(row));
      insert.run(
        seq,
        row.ts,
        row.eventType,
        row.decisionId,
        row.sessionId,
        row.tool,
        row.actor,
        row.outcome,
        row.payload,
        prev,
        hash,
      );
      hashes.push(hash);
      prev = hash;
    }
  } finally {
    db.close();
  }
  return hashes;
}

async function verifyJson(db: string) {
  const out: string[] = [];
  const code = await runAuditVerify(
    { db, json: true },
    { out: (l) => out.push(l), err: (l) => out.push(l) },
  );
  return { code, report: JSON.parse(out.join('')) as Record<string, unknown> };
}

describe('the principal column (schema version 2)', () => {
  test('a version-1 log migrates, keeps its hashes, verifies, and takes rows with a principal', async () => {
    using dir = tempDir();
    const path = dir.file('audit.db');
    const before = versionOneLog(path, 3);
    const log = openAuditLog({ path, ...noTimer });
    await log.append(toolCalled(4, { actor: 'kids-tablet', principal: 'kids_tablet' }));
    await log.close();
    expect(sql(path, 'PRAGMA user_version;').trim()).toBe(String(AUDIT_SCHEMA_VERSION));
    expect(AUDIT_SCHEMA_VERSION).toBe(2);
    expect(sql(path, 'SELECT hash FROM audit_events WHERE seq <= 3 ORDER BY seq;').trim()).toBe(
      before.join('\n'),
    );
    const { code, report } = await verifyJson(path);
    expect(report).toMatchObject({ ok: true, rows: 4, firstSeq: 1, lastSeq: 4 });
    expect(code).toBe(0);
    using reader = AuditReader.open(path);
    const rows = reader.query({ order: 'oldest' });
    expect(rows.map((r) => r.principal)).toEqual([null, null, null, 'kids_tablet']);
    expect(reader.query({ principal: 'kids_tablet' }).map((r) => r.seq)).toEqual([4]);
  });

  test('the principal is hashed: changing it on a row breaks the chain at that row', async () => {
    using dir = tempDir();
    const path = dir.file('audit.db');
    const log = openAuditLog({ path, ...noTimer });
    await log.append(toolCalled(1, { principal: 'mum' }));
    await log.append(toolCalled(2, { principal: 'mum' }));
    await log.close();
    expect((await verifyJson(path)).report).toMatchObject({ ok: true, rows: 2 });
    sql(
      path,
      'DROP TRIGGER audit_events_no_update; UPDATE audit_events SET principal = ' +
        "'kids_tablet' WHERE seq = 2;",
    );
    expect((await verifyJson(path)).report).toMatchObject({
      ok: false,
      badSeq: 2,
      reason: 'hash_mismatch',
    });
  });
});
