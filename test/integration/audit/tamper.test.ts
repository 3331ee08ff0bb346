import { beforeEach, describe, expect, test } from 'vitest';
import { openAuditLog } from '../../../src/audit/index.js';
import { runAuditVerify } from '../../../src/cli/commands/audit/verify.run.js';
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

describe('caesar audit verify --expect-head (truncation and rebuilt logs)', () => {
  /** In-process verify with a recorded head; text output lines and exit code. */
  async function verifyHead(head: string, json = false) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAuditVerify(
      { db, json, expectHead: head },
      { out: (l) => out.push(l), err: (l) => err.push(l) },
    );
    return { code, out, err };
  }
  const hashOf = (seq: number) =>
    sqlite3(db, `SELECT hash FROM audit_events WHERE seq = ${seq};`).trim();

  test('text mode prints the head as SEQ:HASH, which --expect-head accepts back', async () => {
    const first = await runCli(['audit', 'verify', '--db', db]);
    const head = /head (\d+:[0-9a-f]{64})/.exec(first.stdout)?.[1];
    expect(head).toBe(`20:${hashOf(20)}`);
    const again = await runCli(['audit', 'verify', '--db', db, '--expect-head', head!]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('ok: row 20 still has the recorded hash');
  });

  test('an older recorded head still matches after more appends', async () => {
    const head = `12:${hashOf(12)}`;
    const log = openAuditLog({ path: db, retention: { days: 0, intervalMs: 0 } });
    await log.append(toolCalled(21));
    await log.close();
    expect((await verifyHead(head)).code).toBe(0);
  });

  test('cutting off the newest rows passes the chain check but fails the head check', async () => {
    const hash = hashOf(20);
    sqlite3(db, `${DROP_GUARDS} DELETE FROM audit_events WHERE seq > 17;`);
    const { code, out } = await verifyHead(`20:${hash}`);
    expect(out[0]).toMatch(/^ok: 17 rows verified/); // the chain alone cannot tell
    expect(out[1]).toBe(
      `TRUNCATED: the log ends at seq 17, but row 20 was recorded with hash ${hash}`,
    );
    expect(code).toBe(1);
  });

  test('a log rebuilt with a fresh, valid chain fails the head check at the recorded seq', async () => {
    const head = `20:${hashOf(20)}`;
    // The attacker rebuilds the log with other rows and a fresh, valid chain: verify() passes.
    const rebuilt = dir.file('rebuilt.db');
    const log = openAuditLog({ path: rebuilt, retention: { days: 0, intervalMs: 0 } });
    for (let i = 1; i <= 20; i++) await log.append(toolCalled(i + 100));
    await log.close();
    db = rebuilt;
    const r = await verifyHead(head, true);
    const report = JSON.parse(r.out.join('')) as Record<string, unknown>;
    expect(report).toMatchObject({
      ok: true,
      expected_head: { ok: false, seq: 20, reason: 'rewritten' },
    });
    expect(r.code).toBe(1);
  });

  test('a malformed head is a usage error naming the flag', async () => {
    const { code, err } = await verifyHead('20:not-a-hash');
    expect(code).toBe(2);
    expect(err[0]).toMatch(/--expect-head must be SEQ:HASH/);
  });
});
