import type { Database, Statement } from 'better-sqlite3';
import { z } from 'zod';
import { AUDIT_EVENT_TYPES, AUDIT_OUTCOMES } from './events.js';
import { RECORD_COLUMNS, recordFromRaw, type AuditRecord, type RawRow } from './record.js';

/**
 * Queries over the indexed columns. Filters combine with AND; `types` is an OR within
 * itself. Newest first by default; `afterSeq` (for tailing and paging) reads forward.
 */

const isoDate = z
  .union([z.date(), z.iso.datetime({ offset: true })])
  .transform((v) => (typeof v === 'string' ? new Date(v).toISOString() : v.toISOString()));

export const AuditQuerySchema = z.strictObject({
  /** Rows with `ts >= since`. */
  since: isoDate.optional(),
  /** Rows with `ts < until`. */
  until: isoDate.optional(),
  types: z.array(z.enum(AUDIT_EVENT_TYPES)).optional(),
  tool: z.string().optional(),
  decisionId: z.string().optional(),
  sessionId: z.string().optional(),
  outcome: z.enum(AUDIT_OUTCOMES).optional(),
  actor: z.string().optional(),
  /** Rows of this principal (ADR 0096); rows from before schema version 2 have none. */
  principal: z.string().optional(),
  /** Rows with `seq > afterSeq`, oldest first unless `order` says otherwise. */
  afterSeq: z.number().int().min(0).optional(),
  /** @default 'newest' (or 'oldest' when afterSeq is set) */
  order: z.enum(['newest', 'oldest']).optional(),
  /** @default 100, at most 10000 */
  limit: z.number().int().min(1).max(10_000).default(100),
});

export type AuditQuery = z.input<typeof AuditQuerySchema>;
type ParsedQuery = z.output<typeof AuditQuerySchema>;

/** The time and field filters shared by queries and counts. */
export type AuditFilter = Omit<AuditQuery, 'afterSeq' | 'order' | 'limit'>;

interface Where {
  sql: string;
  params: Array<string | number>;
}

function where(q: Omit<ParsedQuery, 'limit'>): Where {
  const clauses: string[] = [];
  const params: Array<string | number> = [];
  const add = (clause: string, ...values: Array<string | number>) => {
    clauses.push(clause);
    params.push(...values);
  };
  if (q.since !== undefined) add('ts >= ?', q.since);
  if (q.until !== undefined) add('ts < ?', q.until);
  if (q.types?.length) add(`event_type IN (${q.types.map(() => '?').join(', ')})`, ...q.types);
  if (q.tool !== undefined) add('tool = ?', q.tool);
  if (q.decisionId !== undefined) add('decision_id = ?', q.decisionId);
  if (q.sessionId !== undefined) add('session_id = ?', q.sessionId);
  if (q.outcome !== undefined) add('outcome = ?', q.outcome);
  if (q.actor !== undefined) add('actor = ?', q.actor);
  if (q.principal !== undefined) add('principal = ?', q.principal);
  if (q.afterSeq !== undefined) add('seq > ?', q.afterSeq);
  return { sql: clauses.length ? ` WHERE ${clauses.join(' AND ')}` : '', params };
}

const statements = new WeakMap<Database, Map<string, Statement>>();
const MAX_CACHED = 256;

/** Prepared once per connection and SQL text: there are few filter shapes, many queries. */
function prepared(db: Database, sql: string): Statement {
  let byText = statements.get(db);
  if (byText === undefined) {
    byText = new Map();
    statements.set(db, byText);
  }
  let stmt = byText.get(sql);
  if (stmt === undefined) {
    stmt = db.prepare(sql);
    if (byText.size < MAX_CACHED) byText.set(sql, stmt);
  }
  return stmt;
}

export function queryRecords(db: Database, input: AuditQuery = {}): AuditRecord[] {
  const q = AuditQuerySchema.parse(input);
  const w = where(q);
  const order = q.order ?? (q.afterSeq === undefined ? 'newest' : 'oldest');
  const sql =
    `SELECT ${RECORD_COLUMNS} FROM audit_events${w.sql} ` +
    `ORDER BY seq ${order === 'newest' ? 'DESC' : 'ASC'} LIMIT ?`;
  const rows = prepared(db, sql)
    .raw()
    .all(...w.params, q.limit) as RawRow[];
  return rows.map(recordFromRaw);
}

/** Every matching record, oldest first, read in pages (for export). */
export function* iterateRecords(
  db: Database,
  filter: AuditFilter = {},
  pageSize = 2000,
): Generator<AuditRecord> {
  let afterSeq = 0;
  for (;;) {
    const page = queryRecords(db, { ...filter, afterSeq, order: 'oldest', limit: pageSize });
    yield* page;
    if (page.length < pageSize) return;
    afterSeq = (page[page.length - 1] as AuditRecord).seq;
  }
}

export interface AuditCounts {
  readonly total: number;
  readonly byType: Readonly<Record<string, number>>;
  readonly byTool: Readonly<Record<string, number>>;
  readonly byOutcome: Readonly<Record<string, number>>;
}

function groupCount(db: Database, column: string, w: Where): Record<string, number> {
  const extra =
    column === 'tool' ? (w.sql ? ' AND tool IS NOT NULL' : ' WHERE tool IS NOT NULL') : '';
  const sql =
    `SELECT ${column} AS k, count(*) AS n FROM audit_events${w.sql}${extra} ` +
    `GROUP BY ${column} ORDER BY n DESC, k`;
  const rows = prepared(db, sql).all(...w.params) as Array<{ k: string; n: number }>;
  return Object.fromEntries(rows.map((r) => [r.k, r.n]));
}

/** Counts by event type, tool and outcome over the rows matching `filter`. */
export function countRecords(db: Database, filter: AuditFilter = {}): AuditCounts {
  const q = AuditQuerySchema.parse(filter);
  const w = where(q);
  const total = prepared(db, `SELECT count(*) AS n FROM audit_events${w.sql}`).get(...w.params) as {
    n: number;
  };
  return {
    total: total.n,
    byType: groupCount(db, 'event_type', w),
    byTool: groupCount(db, 'tool', w),
    byOutcome: groupCount(db, 'outcome', w),
  };
}
