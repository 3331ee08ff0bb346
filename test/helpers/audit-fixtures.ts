import { spawn, spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AnyAuditEventInput } from '../../src/audit/index.js';

/** Helpers shared by the audit tests: temp dirs, sample events, the CLI and the sqlite3 shell. */

const here = fileURLToPath(new URL('.', import.meta.url));
export const REPO_ROOT = join(here, '..', '..');
const REGISTER = join(here, 'audit-ts-register.mjs');

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

/** Spawns `node` with the TypeScript loader, so children run the sources without a build. */
export function spawnTs(script: string, args: string[]) {
  return spawn(process.execPath, ['--import', REGISTER, join(here, script), ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `caesar <args>` (the audit command group) as a real process. */
export function runAuditCli(args: string[]): Promise<CliResult> {
  const child = spawnTs('audit-cli.mjs', args);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
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
