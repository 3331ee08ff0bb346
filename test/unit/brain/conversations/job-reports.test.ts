import { describe, expect, test } from 'vitest';
import { openStore, query, tempDir, TestClock } from './fixtures.js';

/** ADR 0100: which job ends a conversation is told of, each once. */
describe('claimJobReports', () => {
  const at = (clock: TestClock, ms: number) => clock.ms + ms;

  test('each job is claimed once, whoever asks again', () => {
    using dir = tempDir();
    const clock = new TestClock();
    using store = openStore(dir.file('c.db'), { clock: clock.now });
    const s = store.createSession('alice');
    const jobs = [
      { id: 'j1', submittedAt: at(clock, 10) },
      { id: 'j2', submittedAt: at(clock, 20) },
    ];
    expect(store.claimJobReports(s, jobs)).toEqual(['j1', 'j2']);
    expect(store.claimJobReports(s, jobs)).toEqual([]);
    expect(store.claimJobReports(s, [...jobs, { id: 'j3', submittedAt: at(clock, 30) }])).toEqual([
      'j3',
    ]);
  });

  test("one owner's claim is not another's: the same session name under two actors", () => {
    using dir = tempDir();
    using store = openStore(dir.file('c.db'));
    const a = store.ensureSession('kitchen', 'alice', true);
    const b = store.ensureSession('kitchen', 'bob', true);
    const job = [{ id: 'j1', submittedAt: Date.now() + 1000 }];
    expect(store.claimJobReports(a, job)).toEqual(['j1']);
    expect(store.claimJobReports(b, job)).toEqual(['j1']);
  });

  test('a job submitted before the session was created is not its to report', () => {
    using dir = tempDir();
    const clock = new TestClock();
    using store = openStore(dir.file('c.db'), { clock: clock.now });
    const s = store.createSession('alice');
    expect(store.claimJobReports(s, [{ id: 'old', submittedAt: at(clock, -1) }])).toEqual([]);
  });

  test('a deleted session claims nothing, and its marks go with it', () => {
    using dir = tempDir();
    const clock = new TestClock();
    using store = openStore(dir.file('c.db'), { clock: clock.now, idleTtlMs: 1000 });
    const s = store.createSession('alice');
    expect(store.claimJobReports(s, [{ id: 'j1', submittedAt: clock.ms }])).toEqual(['j1']);
    clock.advance(5000);
    store.prune();
    expect(store.claimJobReports(s, [{ id: 'j2', submittedAt: clock.ms }])).toEqual([]);
    expect(query(dir.file('c.db'), 'SELECT * FROM job_reports')).toEqual([]);
  });

  test('a session keeps at most 64 marks, the newest', () => {
    using dir = tempDir();
    const clock = new TestClock();
    using store = openStore(dir.file('c.db'), { clock: clock.now });
    const s = store.createSession('alice');
    for (let i = 0; i < 70; i++) {
      clock.advance(1);
      store.claimJobReports(s, [{ id: `j${i}`, submittedAt: clock.ms }]);
    }
    const rows = query<{ job_id: string }>(dir.file('c.db'), 'SELECT job_id FROM job_reports');
    expect(rows).toHaveLength(64);
    expect(rows.map((r) => r.job_id)).not.toContain('j5');
    expect(rows.map((r) => r.job_id)).toContain('j69');
  });
});
