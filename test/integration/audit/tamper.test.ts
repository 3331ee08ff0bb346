import { beforeEach, describe, expect, test } from 'vitest';
import { openAuditLog } from '../../../src/audit/index.js';
import { runAuditVerify } from '../../../src/cli/commands/audit.js';
import { sqlite3, tempDir, toolCalled, type TempDir } from '../../helpers/audit-fixtures.js';
import { runCli } from '../../helpers/cli.js';

/**
 * The attacker has the sqlite3 shell and the file. Triggers refuse UPDATE and DELETE, so the
 * attacker first drops them, as anyone with the shell can; the hash chain is what catches it.
 */
const DROP_GUARDS = 'DROP TRIGGER audit_events_no_update; DROP TRIGGER audit_events_no_delete;';

let dir: TempDir;
let db: string;

beforeEach(async () => {
  dir = tempDir();
  db = dir.file('audit.db');
  const log = openAuditLog({ path: db, retention: { days: 0, intervalMs: 0 } });
  await Promise.all(Array.from({ length: 20 }, (_, i) => log.append(toolCalled(i + 1))));
  await log.close();
  return () => dir[Symbol.dispose]();
});

/** `caesar audit verify --json` as a real process. */
async function verify() {
  const res = await runCli(['audit', 'verify', '--db', db, '--json']);
  return { code: res.code, report: JSON.parse(res.stdout) as Record<string, unknown> };
}

/** The same command in-process, for the cases that do not need a process of their own. */
async function verifyInProcess() {
  const out: string[] = [];
  const code = await runAuditVerify(
    { db, json: true },
    { out: (l) => out.push(l), err: (l) => out.push(l) },
  );
  return { code, report: JSON.parse(out.join('')) as Record<string, unknown> };
}

describe('caesar audit verify', () => {
  test('passes on an untouched log', async () => {
    const { code, report } = await verify();
    expect(report).toMatchObject({ ok: true, rows: 20, firstSeq: 1, lastSeq: 20 });
    expect(code).toBe(0);
  });

  test('names the seq when one byte of one payload changed', async () => {
    sqlite3(
      db,
      `${DROP_GUARDS} UPDATE audit_events SET payload = replace(payload, '12 * 2', '13 * 2') WHERE seq = 12;`,
    );
    expect(sqlite3(db, 'SELECT payload FROM audit_events WHERE seq = 12;')).toContain('13 * 2');
    const { code, report } = await verify();
    expect(report).toMatchObject({ ok: false, badSeq: 12, reason: 'hash_mismatch' });
    expect(code).toBe(1);
  });

  test('names the missing seq when a row was deleted', async () => {
    sqlite3(db, `${DROP_GUARDS} DELETE FROM audit_events WHERE seq = 7;`);
    const { code, report } = await verify();
    expect(report).toMatchObject({ ok: false, badSeq: 7, reason: 'missing_rows' });
    expect(code).toBe(1);
  });

  test('names the first seq when two rows were swapped', async () => {
    sqlite3(
      db,
      `${DROP_GUARDS}
       UPDATE audit_events SET seq = -1 WHERE seq = 5;
       UPDATE audit_events SET seq = 5 WHERE seq = 6;
       UPDATE audit_events SET seq = 6 WHERE seq = -1;`,
    );
    const { code, report } = await verify();
    expect(report).toMatchObject({ ok: false, badSeq: 5 });
    expect(code).toBe(1);
  });

  test('catches a changed column outside the payload (actor) at its seq', async () => {
    sqlite3(
      db,
      `${DROP_GUARDS} UPDATE audit_events SET actor = 'token:someone-else' WHERE seq = 3;`,
    );
    expect((await verifyInProcess()).report).toMatchObject({
      ok: false,
      badSeq: 3,
      reason: 'hash_mismatch',
    });
  });

  test('catches deleting the oldest rows without a retention record', async () => {
    sqlite3(db, `${DROP_GUARDS} DELETE FROM audit_events WHERE seq <= 4;`);
    expect((await verifyInProcess()).report).toMatchObject({
      ok: false,
      badSeq: 1,
      reason: 'missing_anchor',
    });
  });

  test('catches a payload that is no longer JSON', async () => {
    sqlite3(db, `${DROP_GUARDS} UPDATE audit_events SET payload = '{"a":' WHERE seq = 9;`);
    expect((await verifyInProcess()).report).toMatchObject({
      ok: false,
      badSeq: 9,
      reason: 'payload_not_json',
    });
  });

  test('prints the first bad seq in text mode', async () => {
    sqlite3(db, `${DROP_GUARDS} UPDATE audit_events SET outcome = 'denied' WHERE seq = 15;`);
    const res = await runCli(['audit', 'verify', '--db', db]);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/^TAMPERED at seq 15: hash_mismatch/);
  });
});

describe('append-only guards', () => {
  test.each([
    ['UPDATE', "UPDATE audit_events SET actor = 'x' WHERE seq = 1;", /rows are never updated/],
    ['DELETE', 'DELETE FROM audit_events WHERE seq = 1;', /only the retention sweep deletes rows/],
  ])('%s through the sqlite3 shell is refused by a trigger', (_op, sql, message) => {
    expect(() => sqlite3(db, sql)).toThrow(message);
    expect(sqlite3(db, 'SELECT count(*) FROM audit_events;').trim()).toBe('20');
  });
});
