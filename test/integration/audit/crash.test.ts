import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { AuditReader, openAuditLog } from '../../../src/audit/index.js';
import { compiledScriptUrl } from '../../../src/process/index.js';
import { sql, tempDir } from '../../helpers/audit-fixtures.js';

const ROUNDS = 5;
const CALLERS = 64;

interface RoundResult {
  acknowledged: Map<number, string>;
  signal: NodeJS.Signals | null;
}

/**
 * Starts a child that appends from CALLERS concurrent callers, lets it run for a random
 * 50-400 ms after its first append resolved, and SIGKILLs it. Returns every
 * `seq -> decision_id` whose append had resolved before the kill.
 */
async function crashRound(db: string, round: number): Promise<RoundResult> {
  // test/fixtures/audit-crash-child.ts, compiled: `npm test` builds dist/ first.
  const script = compiledScriptUrl(import.meta.url, '../../fixtures/audit-crash-child.js');
  const args = [fileURLToPath(script), db, String(CALLERS), String(round)];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const acknowledged = new Map<number, string>();
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const drained = once(lines, 'close');
  let killTimer: NodeJS.Timeout | undefined;
  lines.on('line', (line) => {
    const [seq, decisionId] = line.split(' ');
    acknowledged.set(Number(seq), decisionId!);
    // Timed from the first acknowledgement, not from start-up: the first group commit carries
    // 64 payloads of 70 kB and may itself take longer than the shortest delay.
    killTimer ??= setTimeout(() => child.kill('SIGKILL'), 50 + Math.floor(Math.random() * 350));
  });
  const [code, signal] = await exited;
  clearTimeout(killTimer);
  await drained;
  if (signal !== 'SIGKILL') throw new Error(`child exited with ${code}: ${stderr}`);
  return { acknowledged, signal };
}

describe('crash safety', () => {
  test(`every append that resolved before a SIGKILL survives it, ${ROUNDS} rounds, and the chain verifies`, async () => {
    using dir = tempDir();
    const db = dir.file('audit.db');
    const everAcknowledged = new Map<number, string>();
    for (let round = 0; round < ROUNDS; round++) {
      const { acknowledged } = await crashRound(db, round);
      expect(acknowledged.size).toBeGreaterThan(0);
      for (const [seq, id] of acknowledged) everAcknowledged.set(seq, id);

      // Nothing half-written: SQLite's own check, then the chain.
      expect(sql(db, 'PRAGMA integrity_check;').trim()).toBe('ok');
      using reader = AuditReader.open(db);
      const report = await reader.verify();
      expect(report).toMatchObject({ ok: true, firstSeq: 1 });
      const rows = report.ok ? report.rows : 0;
      expect(rows).toBeGreaterThanOrEqual(everAcknowledged.size);

      // Every acknowledged append is present with the content it was acknowledged for.
      const stored = new Map<number, string | null>();
      for (const r of reader.records()) stored.set(r.seq, r.decisionId);
      for (const [seq, id] of everAcknowledged) expect(stored.get(seq)).toBe(id);
      expect(reader.query({ limit: 1 })[0]!.payload).toMatchObject({
        input: { password: '[redacted]' },
      });
    }
    // The writer reopens after the last crash (taking over the stale lock) and continues.
    await using log = openAuditLog({ path: db, retention: { days: 0, intervalMs: 0 } });
    expect(log.head.seq).toBeGreaterThanOrEqual(Math.max(...everAcknowledged.keys()));
  }, 60_000);
});
