import { describe, expect, test } from 'vitest';
import { DEFAULT_IDLE_TTL_MS } from '../../../../src/brain/conversations/options.js';
import type { SessionRef } from '../../../../src/brain/conversations/types.js';
import { openStore, scalar, tempDir, TestClock } from './fixtures.js';

const DAY = 24 * 60 * 60 * 1000;
/** Turns whose session is gone: deleting a session must delete its turns. */
const ORPHAN_TURNS = 'SELECT count(*) FROM turns WHERE session NOT IN (SELECT key FROM sessions)';

describe('maxSessions', () => {
  test('creating a session past the cap evicts the least recently updated, turns included', () => {
    using dir = tempDir();
    const file = dir.file('c.db');
    const clock = new TestClock();
    using store = openStore(file, { maxSessions: 3, clock: clock.now });
    const ids: SessionRef[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(store.createSession('alice'));
      clock.advance(1000);
    }
    const [oldest, middle, newest] = ids as [SessionRef, SessionRef, SessionRef];
    store.appendUser(oldest, 'keeps the oldest alive'); // now the most recently updated
    clock.advance(1000);
    store.appendUser(middle, 'gone soon');
    clock.advance(1000);
    const fourth = store.createSession('bob');
    expect(store.getSession(newest)).toBeUndefined();
    expect(scalar(file, ORPHAN_TURNS)).toBe(0);
    expect([oldest, middle, fourth].map((s) => store.getSession(s)?.id)).toEqual([
      oldest.id,
      middle.id,
      fourth.id,
    ]);
    expect(scalar(file, 'SELECT count(*) FROM sessions')).toBe(3);
  });

  test('the number of sessions never exceeds the cap', () => {
    using dir = tempDir();
    const file = dir.file('c.db');
    const clock = new TestClock();
    using store = openStore(file, { maxSessions: 5, clock: clock.now });
    let last: SessionRef | undefined;
    for (let i = 0; i < 40; i++) {
      last = store.createSession('alice');
      store.appendUser(last, `m${i}`);
      clock.advance(10);
      expect(scalar(file, 'SELECT count(*) FROM sessions')).toBeLessThanOrEqual(5);
    }
    expect(store.history(last!).map((t) => t.content)).toEqual(['m39']);
    expect(scalar(file, 'SELECT count(*) FROM turns')).toBe(5);
  });

  test('prune evicts down to a cap lowered since the sessions were made', () => {
    using dir = tempDir();
    const file = dir.file('c.db');
    const clock = new TestClock();
    const wide = openStore(file, { maxSessions: 10, clock: clock.now });
    const ids = Array.from({ length: 6 }, () => {
      clock.advance(1000);
      return wide.createSession('alice');
    });
    wide.close();
    using narrow = openStore(file, { maxSessions: 2, clock: clock.now });
    expect(narrow.prune()).toEqual({ expired: 0, evicted: 4 });
    expect(ids.map((id) => narrow.getSession(id) !== undefined)).toEqual([
      false,
      false,
      false,
      false,
      true,
      true,
    ]);
  });
});

describe('idle TTL', () => {
  test('prune drops sessions idle longer than idleTtlMs and keeps the rest', () => {
    using dir = tempDir();
    const file = dir.file('c.db');
    const clock = new TestClock();
    using store = openStore(file, { idleTtlMs: 7 * DAY, clock: clock.now });
    const stale = store.createSession('alice');
    store.appendUser(stale, 'old');
    const active = store.createSession('alice');
    clock.advance(6 * DAY);
    store.appendUser(active, 'still talking');
    clock.advance(2 * DAY); // stale idle 8 days, active idle 2 days
    expect(store.prune()).toEqual({ expired: 1, evicted: 0 });
    expect(store.getSession(stale)).toBeUndefined();
    expect(scalar(file, ORPHAN_TURNS)).toBe(0);
    expect(scalar(file, 'SELECT count(*) FROM turns')).toBe(1);
    expect(store.history(active).map((t) => t.content)).toEqual(['still talking']);
  });

  test.each([
    ['exactly the TTL is kept', 0, 0],
    ['one millisecond past the TTL is expired', 1, 1],
  ])('a session idle for %s', (_case, extraMs, expired) => {
    using dir = tempDir();
    const clock = new TestClock();
    using store = openStore(dir.file('c.db'), { clock: clock.now });
    store.createSession('alice');
    const now = new Date(clock.ms + DEFAULT_IDLE_TTL_MS + extraMs);
    expect(store.prune(now).expired).toBe(expired);
  });

  test('the default TTL is 30 days', () => {
    expect(DEFAULT_IDLE_TTL_MS).toBe(30 * DAY);
  });

  test('prune with nothing to do deletes nothing', () => {
    using dir = tempDir();
    using store = openStore(dir.file('c.db'));
    const id = store.createSession('alice');
    expect(store.prune()).toEqual({ expired: 0, evicted: 0 });
    expect(store.getSession(id)).toBeDefined();
  });
});
