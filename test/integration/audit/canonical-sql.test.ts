import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { canonicalJson, canonicalRow } from '../../../src/audit/index.js';
import type { JsonValue } from '../../../src/text/canonical-json.js';
import { CANONICAL_ROW_SQL } from '../../../src/audit/verify-range.js';

describe('canonical row built by SQLite for verification', () => {
  test('is byte-for-byte the canonical row the writer hashes, for any column text', () => {
    const db = new Database(':memory:');
    const stmt = db
      .prepare(
        `SELECT ${CANONICAL_ROW_SQL} FROM (SELECT CAST(? AS INTEGER) AS seq, ? AS ts, ? AS event_type, ` +
          '? AS decision_id, ? AS session_id, ? AS tool, ? AS actor, ? AS outcome, ? AS payload, ' +
          '? AS principal)',
      )
      .pluck();
    // Column text as prepareRow leaves it: any well-formed string, or null where allowed.
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    const nullable = fc.option(text, { nil: null });
    try {
      fc.assert(
        fc.property(
          fc.nat(),
          text,
          text,
          nullable,
          nullable,
          nullable,
          text,
          text,
          fc.jsonValue(),
          nullable,
          (seq, ts, eventType, decisionId, sessionId, tool, actor, outcome, value, principal) => {
            const payload = canonicalJson({ v: value as JsonValue });
            const row = {
              seq,
              ts,
              eventType,
              decisionId,
              sessionId,
              tool,
              actor,
              outcome,
              payload,
              principal,
            };
            const sql = stmt.get(
              seq,
              ts,
              eventType,
              decisionId,
              sessionId,
              tool,
              actor,
              outcome,
              payload,
              principal,
            );
            expect(sql).toBe(canonicalRow(row));
          },
        ),
        { numRuns: 500 },
      );
    } finally {
      db.close();
    }
  });
});
