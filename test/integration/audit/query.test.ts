import { beforeAll, afterAll, describe, expect, test } from 'vitest';
import { openAuditLog, type AuditLog, type AuditQuery } from '../../../src/audit/index.js';
import { tempDir, toolCalled, type TempDir } from '../../helpers/audit-fixtures.js';

let dir: TempDir;
let log: AuditLog;
const decision = { allowed: false, reason: 'not listed', rule: null, policy_sha256: 'p1' };

beforeAll(async () => {
  dir = tempDir();
  let now = Date.parse('2025-03-01T00:00:00.000Z');
  log = openAuditLog({
    path: dir.file('audit.db'),
    clock: () => new Date((now += 60_000)), // one minute per event
    retention: { days: 0, intervalMs: 0 },
  });
  for (let i = 1; i <= 6; i++) {
    await log.append(toolCalled(i));
    await log.append({
      type: 'tool.result',
      actor: 'token:test',
      tool: 'calculator',
      decisionId: `d-${i}`,
      sessionId: `s-${i % 3}`,
      payload: { result: i * 2, duration_ms: 3 },
    });
  }
  await log.append({
    type: 'tool.denied',
    actor: 'cli',
    tool: 'web_search',
    decisionId: 'd-denied',
    payload: { input: { q: 'x' }, decision, code: 'denied' },
  });
  await log.append({
    type: 'policy.reloaded',
    actor: 'trigger:file-watch',
    payload: { path: 'policy.yaml', policy_sha256: 'p2', previous_sha256: 'p1', rules: 3 },
  });
});

afterAll(async () => {
  await log.close();
  dir[Symbol.dispose]();
});

const seqs = (q: AuditQuery) => log.query(q).map((r) => r.seq);

describe('query', () => {
  test.each<[string, AuditQuery, number[]]>([
    ['newest first by default', { limit: 3 }, [14, 13, 12]],
    ['by event type', { types: ['tool.denied', 'policy.reloaded'] }, [14, 13]],
    ['by tool', { tool: 'web_search' }, [13]],
    ['by decision id', { decisionId: 'd-2' }, [4, 3]],
    ['by session id', { sessionId: 's-0', types: ['tool.called'] }, [11, 5]],
    ['by outcome', { outcome: 'denied' }, [13]],
    ['by actor', { actor: 'cli' }, [13]],
    [
      'by time range',
      { since: '2025-03-01T00:03:00.000Z', until: '2025-03-01T00:05:00.000Z' },
      [4, 3],
    ],
    ['from a seq, oldest first (tailing)', { afterSeq: 11 }, [12, 13, 14]],
    ['from a seq, newest first when asked', { afterSeq: 11, order: 'newest', limit: 2 }, [14, 13]],
    ['oldest first with a limit', { order: 'oldest', limit: 2 }, [1, 2]],
  ])('%s', (_name, q, expected) => {
    expect(seqs(q)).toEqual(expected);
  });

  test('returns parsed payloads and every column', () => {
    const [row] = log.query({ decisionId: 'd-denied' });
    expect(row).toMatchObject({
      seq: 13,
      type: 'tool.denied',
      outcome: 'denied',
      actor: 'cli',
      tool: 'web_search',
      sessionId: null,
      payload: { code: 'denied', decision: { rule: null } },
    });
    expect(row!.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(row!.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  test('rejects a query with an unknown event type or field', () => {
    expect(() => log.query({ types: ['tool.nope' as never] })).toThrow();
    expect(() => log.query({ bogus: 1 } as never)).toThrow();
  });

  test('records() pages through everything matching, oldest first', () => {
    expect([...log.records({ types: ['tool.result'] })].map((r) => r.seq)).toEqual([
      2, 4, 6, 8, 10, 12,
    ]);
  });

  test('counts by type, tool and outcome, optionally filtered', () => {
    expect(log.counts()).toEqual({
      total: 14,
      byType: { 'tool.called': 6, 'tool.result': 6, 'policy.reloaded': 1, 'tool.denied': 1 },
      byTool: { calculator: 12, web_search: 1 },
      byOutcome: { allowed: 6, ok: 7, denied: 1 },
    });
    expect(log.counts({ tool: 'calculator', types: ['tool.result'] }).total).toBe(6);
  });

  test('stats report the span, size and schema', () => {
    expect(log.stats()).toMatchObject({
      rows: 14,
      firstSeq: 1,
      lastSeq: 14,
      firstTs: '2025-03-01T00:01:00.000Z',
      lastTs: '2025-03-01T00:14:00.000Z',
      schemaVersion: 2,
    });
  });

  test('a decision-id lookup uses its index', async () => {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(log.path, { readonly: true });
    try {
      const plan = db
        .prepare('EXPLAIN QUERY PLAN SELECT * FROM audit_events WHERE decision_id = ?')
        .all('d-1') as Array<{ detail: string }>;
      expect(plan.map((p) => p.detail).join(' ')).toMatch(/USING INDEX audit_events_decision_id/);
    } finally {
      db.close();
    }
  });
});
