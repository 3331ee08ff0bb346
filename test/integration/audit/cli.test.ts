import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { canonicalJson, openAuditLog } from '../../../src/audit/index.js';
import type { JsonValue } from '../../../src/text/canonical-json.js';
import type { AuditCliIo } from '../../../src/cli/commands/audit/log.js';
import { parseTime } from '../../../src/cli/commands/audit/filters.js';
import { runAuditExport } from '../../../src/cli/commands/audit/export.run.js';
import { runAuditQuery } from '../../../src/cli/commands/audit/query.run.js';
import { runAuditStats } from '../../../src/cli/commands/audit/stats.run.js';
import { runAuditVerify } from '../../../src/cli/commands/audit/verify.run.js';
import { tempDir, toolCalled, type TempDir } from '../../helpers/audit-fixtures.js';
import { runCli, startCli } from '../../helpers/cli.js';

let dir: TempDir;
let db: string;

beforeAll(async () => {
  dir = tempDir();
  db = dir.file('audit.db');
  const log = openAuditLog({ path: db, retention: { days: 0, intervalMs: 0 } });
  for (let i = 1; i <= 5; i++) await log.append(toolCalled(i));
  await log.append({
    type: 'chat.completed',
    actor: 'token:ops',
    sessionId: 's-9',
    payload: {
      message: 'what is 2 * 2 with api_key=abc123secret',
      reply: '4',
      iterations: 1,
      capped: false,
      planner: 'intent',
      tool_calls: [{ tool: 'calculator', decision_id: 'd-1', outcome: 'ok' }],
      duration_ms: 5,
    },
  });
  await log.close();
});

afterAll(() => dir[Symbol.dispose]());

function collector(): AuditCliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l) };
}

/**
 * Each `caesar` process takes about 1 s of CPU to start (issue 13), several seconds on a busy
 * machine, and a test here spawns up to five in turn: the bound only catches a hang.
 */
describe('caesar audit (processes)', { timeout: 60_000 }, () => {
  test.each([
    ['an unknown event type', ['audit', 'query', '--type', 'tool.nope']],
    ['an unknown option', ['audit', 'stats', '--bogus']],
    ['a bad --since', ['audit', 'query', '--since', 'yesterday-ish']],
    ['a missing --to', ['audit', 'backup']],
  ])('%s is a usage error: exit 2', async (_name, args) => {
    const res = await runCli([...args, '--db', db]);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toMatch(/error/);
  });

  test('a missing log is an operational error: exit 1 and the path', async () => {
    const res = await runCli(['audit', 'stats', '--db', dir.file('nope.db')]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`no audit log at ${dir.file('nope.db')}`);
  });

  test('query --json prints one parsed row per line, newest first', async () => {
    const res = await runCli([
      'audit',
      'query',
      '--db',
      db,
      '--tool',
      'calculator',
      '--limit',
      '2',
      '--json',
    ]);
    expect(res.code).toBe(0);
    const rows = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; event_type: string });
    expect(rows.map((r) => [r.seq, r.event_type])).toEqual([
      [5, 'tool.called'],
      [4, 'tool.called'],
    ]);
  });

  test('tail -f prints the last rows, then new rows as they land, and stops on SIGINT', async () => {
    const own = dir.file('tail.db');
    const seed = openAuditLog({ path: own, retention: { days: 0, intervalMs: 0 } });
    for (let i = 1; i <= 6; i++) await seed.append(toolCalled(i));
    await seed.close();
    const cli = startCli(['audit', 'tail', '-f', '-n', '2', '--db', own, '--json']);
    try {
      await cli.waitForLine(/"seq":6[,}]/);
      expect(cli.lines.map((l) => (JSON.parse(l) as { seq: number }).seq)).toEqual([5, 6]);
      const log = openAuditLog({ path: own, retention: { days: 0, intervalMs: 0 } });
      await log.append(toolCalled(77));
      await log.close();
      await cli.waitForLine(/"decision_id":"d-77"/);
      expect(JSON.parse(cli.lines[2]!)).toMatchObject({ seq: 7, decision_id: 'd-77' });
      cli.child.kill('SIGINT');
      expect((await cli.exited).code).toBe(0);
    } finally {
      if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
    }
  });

  test('backup --to then restore --from round-trips; restore refuses while the log is held', async () => {
    const backup = dir.file('backup.db');
    const b = await runCli(['audit', 'backup', '--db', db, '--to', backup]);
    expect(b.code).toBe(0);
    expect(b.stdout).toMatch(/^backup written: .*backup\.db/);
    expect(b.stdout).toMatch(/ok: \d+ rows verified/);

    const target = dir.file('restored/audit.db');
    const held = openAuditLog({ path: target, retention: { days: 0, intervalMs: 0 } });
    const refused = await runCli(['audit', 'restore', '--db', target, '--from', backup]);
    await held.close();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/in use by pid \d+/);

    const r = await runCli(['audit', 'restore', '--db', target, '--from', backup]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/restored .* -> .*restored\/audit\.db/);
  });
});

describe('caesar audit (in process)', () => {
  test('a schema failure (tool.input_rejected) is a type --type takes, and the chain verifies', async () => {
    const own = dir.file('rejected.db');
    const log = openAuditLog({ path: own, retention: { days: 0, intervalMs: 0 } });
    await log.append(toolCalled(1));
    await log.append({
      type: 'tool.input_rejected',
      actor: 'token:test',
      outcome: 'rejected',
      tool: 'web_search',
      decisionId: 'd-bad',
      payload: {
        input: { query: 'x', bogus: 1 },
        decision: { allowed: true, reason: 'allowed', rule: 'r1', policy_sha256: 'p1' },
        code: 'invalid_input',
        problems: [{ path: 'bogus', message: "unknown field 'bogus'" }],
      },
    });
    await log.close();
    const res = await runCli([
      'audit',
      'query',
      '--type',
      'tool.input_rejected',
      '--db',
      own,
      '--json',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout.trim())).toMatchObject({
      seq: 2,
      event_type: 'tool.input_rejected',
      outcome: 'rejected',
    });
    const io = collector();
    expect(await runAuditVerify({ db: own }, io), io.errors.join('\n')).toBe(0);
  });

  test('stats prints counts by type, tool and outcome', async () => {
    const io = collector();
    expect(await runAuditStats({ db }, io)).toBe(0);
    expect(io.lines.join('\n')).toMatch(/by type\s+tool\.called 5, chat\.completed 1/);
    expect(io.lines.join('\n')).toMatch(/by outcome\s+allowed 5, ok 1/);
  });

  test('text query lines show seq, type, outcome, tool and actor', async () => {
    const io = collector();
    await runAuditQuery({ db, limit: 1, type: ['tool.called'] }, io);
    expect(io.lines[0]).toMatch(
      /^#5 {2}\S+Z {2}tool\.called {2}allowed {2}calculator {2}actor=token:test {2}decision=d-5/,
    );
  });

  test('export --format jsonl lets an outside verifier recompute every hash', async () => {
    const out = dir.file('export.jsonl');
    expect(await runAuditExport({ db, format: 'jsonl', out }, collector())).toBe(0);
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, JsonValue>);
    expect(rows).toHaveLength(6);
    let prev = '0'.repeat(64);
    for (const row of rows) {
      const { prev_hash, hash, ...columns } = row;
      expect(prev_hash).toBe(prev);
      const recomputed = createHash('sha256')
        .update(`${prev}${canonicalJson(columns)}`)
        .digest('hex');
      expect(recomputed).toBe(hash);
      prev = hash as string;
    }
    expect(readFileSync(out, 'utf8')).not.toContain('abc123secret');
  });

  test('export refuses formats other than jsonl with the usage exit code', async () => {
    const io = collector();
    expect(await runAuditExport({ db, format: 'csv' }, io)).toBe(2);
    expect(io.errors[0]).toMatch(/unsupported --format csv/);
  });

  test.each([
    ['15m', '2025-01-01T11:45:00.000Z'],
    ['2h', '2025-01-01T10:00:00.000Z'],
    ['7d', '2024-12-25T12:00:00.000Z'],
    ['2 hours', '2025-01-01T10:00:00.000Z'],
    ['400d', '2023-11-28T12:00:00.000Z'],
    ['2024-12-31T00:00:00Z', '2024-12-31T00:00:00.000Z'],
  ])('--since %s means %s', (text, expected) => {
    expect(parseTime(text, new Date('2025-01-01T12:00:00.000Z'))).toBe(expected);
  });

  test.each(['7', 'yesterday', '5 fortnights'])(
    '--since %s is refused with the duration grammar named',
    (text) => {
      expect(() => parseTime(text)).toThrow(/ISO-8601 time or a duration such as/);
    },
  );
});
