import { describe, expect, test } from 'vitest';
import { ENTRY_OVERHEAD, ReplyCache, type SentReply } from '../../../src/legion/reply-cache.js';

/** A clock the test moves by hand. */
function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

function reply(bytes: number, sentAt: number, to = '_INBOX.brain.x.token'): SentReply {
  return { payload: new Uint8Array(bytes), to, sentAt };
}

describe('ReplyCache', () => {
  test('a received call is running until its reply is sent, then done with the reply as sent', () => {
    const c = clock();
    const cache = new ReplyCache({ now: c.now });
    expect(cache.admit('d1', 0, c.now() + 5000)).toBe(true);
    expect(cache.ask('d1', 0, c.now() + 5000)).toEqual({ state: 'running' });
    const sent = reply(10, c.now());
    cache.sent('d1', sent);
    expect(cache.ask('d1', 0, c.now() + 5000)).toEqual({ state: 'done', reply: sent });
  });

  test('a query for a call never received answers unknown and fences it: the call is refused if it arrives later', () => {
    const c = clock();
    const cache = new ReplyCache({ now: c.now });
    const deadline = c.now() + 5000;
    expect(cache.ask('d1', 0, deadline)).toEqual({ state: 'unknown' });
    expect(cache.admit('d1', 0, deadline)).toBe(false);
    // the one re-dispatch (attempt 1) is not fenced
    expect(cache.admit('d1', 1, deadline)).toBe(true);
    expect(cache.ask('d1', 1, deadline)).toEqual({ state: 'running' });
  });

  test('a fence lasts until the deadline plus keepMs, then the id is forgotten', () => {
    const c = clock();
    const cache = new ReplyCache({ now: c.now, keepMs: 100 });
    const deadline = c.now() + 1000;
    cache.ask('d1', 0, deadline);
    c.advance(1099);
    expect(cache.admit('d1', 0, deadline)).toBe(false);
    c.advance(2);
    expect(cache.admit('d1', 0, deadline)).toBe(true);
  });

  test('a reply sent for a call that is not running (fenced, or never admitted) is not kept', () => {
    const c = clock();
    const cache = new ReplyCache({ now: c.now });
    cache.sent('never-admitted', reply(10, c.now()));
    expect(cache.size).toBe(0);
    cache.ask('fenced', 0, c.now() + 1000);
    cache.sent('fenced', reply(10, c.now()));
    expect(cache.ask('fenced', 0, c.now() + 1000)).toEqual({ state: 'unknown' });
  });

  test('entries expire with their deadline plus keepMs', () => {
    const c = clock();
    const cache = new ReplyCache({ now: c.now, keepMs: 1000 });
    cache.admit('d1', 0, c.now() + 500);
    cache.sent('d1', reply(10, c.now()));
    c.advance(1499);
    expect(cache.ask('d1', 0, c.now()).state).toBe('done');
    c.advance(2);
    expect(cache.ask('d1', 0, c.now()).state).toBe('unknown');
  });

  test('past maxEntries the oldest entry goes first', () => {
    const c = clock();
    const cache = new ReplyCache({ now: c.now, maxEntries: 3 });
    for (const id of ['a', 'b', 'c', 'd']) cache.admit(id, 0, c.now() + 5000);
    expect(cache.size).toBe(3);
    expect(cache.ask('b', 0, c.now() + 5000).state).toBe('running');
    // 'a' was evicted: asking about it now fences it, and evicts the oldest left ('b')
    expect(cache.ask('a', 0, c.now() + 5000).state).toBe('unknown');
    expect(cache.size).toBe(3);
  });

  test('past maxBytes the oldest replies go until the bytes fit; bytes are counted back on eviction', () => {
    const c = clock();
    const cache = new ReplyCache({ now: c.now, maxBytes: 3 * (ENTRY_OVERHEAD + 100) });
    for (const id of ['a', 'b', 'c', 'd']) {
      cache.admit(id, 0, c.now() + 5000);
      cache.sent(id, reply(100, c.now()));
    }
    expect(cache.bytes).toBeLessThanOrEqual(3 * (ENTRY_OVERHEAD + 100));
    expect(cache.ask('d', 0, c.now() + 5000).state).toBe('done');
    expect(cache.sentSince(0).length).toBeLessThanOrEqual(3);
  });

  test('a reply larger than the whole byte bound is not kept, and the call is forgotten', () => {
    const c = clock();
    const cache = new ReplyCache({ now: c.now, maxBytes: ENTRY_OVERHEAD + 10 });
    cache.admit('big', 0, c.now() + 5000);
    cache.sent('big', reply(11, c.now()));
    expect(cache.size).toBe(0);
    expect(cache.bytes).toBe(0);
  });

  test('sentSince lists the replies sent since a time whose calls have not expired', () => {
    const c = clock();
    const cache = new ReplyCache({ now: c.now, keepMs: 0 });
    cache.admit('old', 0, c.now() + 10_000);
    cache.sent('old', reply(1, c.now()));
    c.advance(100);
    cache.admit('new', 0, c.now() + 10_000);
    cache.sent('new', reply(1, c.now(), 'to-new'));
    cache.admit('short', 0, c.now() + 10);
    cache.sent('short', reply(1, c.now()));
    c.advance(50);
    expect(cache.sentSince(c.now() - 60).map((r) => r.to)).toEqual(['to-new']);
  });

  test.each([
    ['maxEntries', { maxEntries: 0 }],
    ['maxBytes', { maxBytes: 0 }],
    ['keepMs', { keepMs: -5 }],
  ])('a nonsensical %s is raised to its floor, never unbounded', (_name, options) => {
    const cache = new ReplyCache(options);
    expect(cache.admit('d1', 0, Date.now() + 1000)).toBe(true);
    expect(cache.size).toBe(1);
  });
});

describe('kept bytes', () => {
  test('a reply that is a view of a larger buffer is kept as its own bytes', () => {
    const cache = new ReplyCache({ now: () => 0 });
    const slab = new Uint8Array(8192).fill(7);
    cache.admit('d-slab', 0, 10_000);
    cache.sent('d-slab', { payload: slab.subarray(100, 110), to: 'inbox', sentAt: 0 });
    const got = cache.ask('d-slab', 0, 10_000);
    expect(got.state).toBe('done');
    if (got.state !== 'done') return;
    expect(got.reply.payload.buffer.byteLength).toBe(10);
    expect([...got.reply.payload]).toEqual(Array(10).fill(7));
    expect(cache.bytes).toBe(ENTRY_OVERHEAD + 10);
  });
});
