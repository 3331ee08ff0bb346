import { describe, expect, it } from 'vitest';
import { RefCounted } from '../../../src/legion/ref-counted.js';

describe('RefCounted: what a tool’s instances share', () => {
  it('opens a key once for all its users and closes it after the last release only', async () => {
    const closed: string[] = [];
    let opened = 0;
    const shared = new RefCounted<string, { name: string }>((v) => closed.push(v.name));
    const open = () => ({ name: `pool ${++opened}` });
    const a = shared.acquire('k', open);
    const b = shared.acquire('k', open);
    expect(b).toBe(a);
    expect(opened).toBe(1);
    expect(shared.users).toBe(2);
    await shared.release();
    expect(closed).toEqual([]);
    expect(shared.peek('k')).toBe(a);
    await shared.release();
    expect(closed).toEqual(['pool 1']);
    expect(shared.peek('k')).toBeUndefined();
    // a start after the last stop opens anew
    expect(shared.acquire('k', open).name).toBe('pool 2');
  });

  it('keeps one value per key under one count: nothing closes while any instance runs', async () => {
    const closed: string[] = [];
    const shared = new RefCounted<string, string>((v) => closed.push(v));
    shared.acquire('house', () => 'house client');
    shared.acquire('cabin', () => 'cabin client');
    await shared.release();
    expect(closed).toEqual([]);
    await shared.release();
    expect(closed.sort()).toEqual(['cabin client', 'house client']);
  });

  it('a close that fails stops no other close', async () => {
    const closed: string[] = [];
    const shared = new RefCounted<string, string>((v) => {
      if (v === 'bad') return Promise.reject(new Error('close failed'));
      closed.push(v);
      return Promise.resolve();
    });
    shared.acquire('a', () => 'bad');
    shared.acquire('b', () => 'good');
    await shared.release();
    await expect(shared.release()).resolves.toBeUndefined();
    expect(closed).toEqual(['good']);
  });

  it('an opening that throws counts no user and leaves nothing open', async () => {
    const closed: unknown[] = [];
    const shared = new RefCounted<string, string>((v) => closed.push(v));
    expect(() =>
      shared.acquire('k', () => {
        throw new Error('no threads');
      }),
    ).toThrow('no threads');
    expect(shared.users).toBe(0);
    expect(shared.peek('k')).toBeUndefined();
    shared.acquire('k', () => 'second try');
    await shared.release();
    expect(closed).toEqual(['second try']);
  });

  it('an opening whose promise rejects is forgotten before its caller hears, for every user who shared it', async () => {
    const closed: unknown[] = [];
    const shared = new RefCounted<string, Promise<string>>((v) => closed.push(v));
    let fail!: (err: Error) => void;
    const opening = new Promise<string>((_resolve, reject) => (fail = reject));
    const first = shared.acquire('k', () => opening);
    const second = shared.acquire('k', () => Promise.resolve('never opened'));
    expect(second).toBe(first);
    const heard = first.catch(() => ({ users: shared.users, open: shared.peek('k') }));
    const heardToo = second.catch(() => shared.users);
    fail(new Error('the pool could not start'));
    expect(await heard).toEqual({ users: 0, open: undefined });
    expect(await heardToo).toBe(0);
    // the next start opens it anew, and its stop closes what it opened
    await expect(shared.acquire('k', () => Promise.resolve('pool'))).resolves.toBe('pool');
    expect(shared.users).toBe(1);
    await shared.release();
    expect(closed).toEqual(['pool']);
  });
});
