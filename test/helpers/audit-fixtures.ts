import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyAuditEventInput } from '../../src/audit/index.js';

/**
 * Helpers shared by the audit tests: temp dirs, sample events and the sqlite3 shell. The CLI
 * runs compiled, through test/helpers/cli.ts.
 */

export interface TempDir extends Disposable {
  readonly path: string;
  file(name: string): string;
}

/** A fresh directory under the OS temp dir, removed on dispose. */
export function tempDir(prefix = 'caesar-audit-'): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    file: (name) => join(path, name),
    [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }),
  };
}

/** A valid `tool.called` event; `i` makes the decision id unique. */
export function toolCalled(i: number, extra: Partial<AnyAuditEventInput> = {}): AnyAuditEventInput {
  return {
    type: 'tool.called',
    actor: 'token:test',
    tool: 'calculator',
    decisionId: `d-${i}`,
    sessionId: `s-${i % 3}`,
    payload: {
      input: { expression: `${i} * 2` },
      decision: { allowed: true, reason: 'listed', rule: 'allowed_tools[0]', policy_sha256: 'p1' },
    },
    ...extra,
  } as AnyAuditEventInput;
}

/**
 * Runs SQL through the real `sqlite3` shell, as an attacker with shell access would. Fails
 * with an install hint when the shell is missing.
 */
export function sqlite3(db: string, sql: string): string {
  const res = spawnSync('sqlite3', [db], { input: sql, encoding: 'utf8' });
  if (res.error && (res.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw new Error('the sqlite3 shell is missing: apt-get install -y sqlite3');
  }
  if (res.status !== 0) throw new Error(`sqlite3 failed (${res.status}): ${res.stderr}`);
  return res.stdout;
}

/**
 * Runs SQL on its own better-sqlite3 connection (no shell needed) and prints rows the way the
 * sqlite3 shell does: one line per row, columns joined by `|`.
 */
export function sql(db: string, text: string): string {
  const conn = new Database(db);
  try {
    const stmts = text
      .split(';')
      .map((s) => s.trim())
      .filter(Boolean);
    let out = '';
    for (const s of stmts) {
      const stmt = conn.prepare(s);
      if (!stmt.reader) {
        stmt.run();
        continue;
      }
      for (const row of stmt.raw().all() as unknown[][]) out += `${row.map(String).join('|')}\n`;
    }
    return out;
  } finally {
    conn.close();
  }
}
