import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { durableCommitMicros } from '../../../bench/brain-probes.js';

// Nothing in the suite runs `npm run bench`, so the brain bench's raw-insert baseline once
// fell behind the audit log's columns (version 2 added `principal`) and every run died at
// its first round. A few commits of each kind keep it in step with the log's schema.

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-bench-probes-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('the audit baseline commits rows in the log its own code opens', async () => {
  const p50 = await durableCommitMicros(dir, 'audit', 3);
  expect(p50).toBeGreaterThan(0);
  const db = new Database(join(dir, 'fsync-audit.db'), { readonly: true });
  try {
    const row = db
      .prepare('SELECT count(*) AS n, max(principal) AS principal FROM audit_events')
      .get() as { n: number; principal: string | null };
    expect(row).toEqual({ n: 23, principal: null });
  } finally {
    db.close();
  }
});

test('the page baseline commits one row a transaction', async () => {
  expect(await durableCommitMicros(dir, 'page', 3)).toBeGreaterThan(0);
});
