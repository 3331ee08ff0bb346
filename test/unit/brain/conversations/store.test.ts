import { existsSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import {
  ConversationStoreError,
  SessionNotFoundError,
} from '../../../../src/brain/conversations/errors.js';
import type {
  SessionRef,
  ToolRecordLabel,
  Turn,
} from '../../../../src/brain/conversations/types.js';
import { readItemsOf } from '../../../../src/brain/agent/turn-calls.js';
import { openStore, scalar, tempDir, TestClock } from './fixtures.js';

const roles = (turns: readonly Turn[]) => turns.map((t) => `${t.role}:${t.content}`);

describe('sessions', () => {
  test('a new session id is 22 base64url characters and ids differ', () => {
    using dir = tempDir();
    using store = openStore(dir.file('c.db'));
    const ids = new Set(Array.from({ length: 50 }, () => store.createSession('alice').id));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  test('getSession returns owner, ISO times and turns oldest first', () => {
    using dir = tempDir();
    const clock = new TestClock();
    using store = openStore(dir.file('c.db'), { clock: clock.now });
    const id = store.createSession('alice');
    clock.advance(1000);
    store.appendUser(id, 'hi');
    clock.advance(1000);
    store.appendAssistant(id, 'hello');
    expect(store.getSession(id)).toEqual({
      id: id.id,
      actor: 'alice',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:02.000Z',
      turns: [
        { role: 'user', content: 'hi', at: '2026-01-01T00:00:01.000Z' },
        { role: 'assistant', content: 'hello', at: '2026-01-01T00:00:02.000Z' },
      ],
    });
  });

  test('getSession of an unknown id is undefined', () => {
    using dir = tempDir();
    using store = openStore(dir.file('c.db'));
    expect(store.getSession({ actor: 'alice', id: 'nope' })).toBeUndefined();
  });

  test('ensureSession without an id creates a session owned by the actor', () => {
    using dir = tempDir();
    using store = openStore(dir.file('c.db'));
    const id = store.ensureSession(undefined, 'alice');
    expect(store.getSession(id)?.actor).toBe('alice');
  });

  test('ensureSession with the owner returns the same id and creates nothing', () => {
    using dir = tempDir();
    const file = dir.file('c.db');
    using store = openStore(file);
    const id = store.createSession('alice');
    expect(store.ensureSession(id.id, 'alice')).toEqual(id);
    expect(scalar(file, 'SELECT count(*) FROM sessions')).toBe(1);
  });

  test.each([
    ['an unknown id', () => 'x'.repeat(22)],
    ['another actor', (own: SessionRef) => own.id],
  ])('ensureSession with %s throws session_not_found and creates nothing', (_case, pick) => {
    using dir = tempDir();
    const file = dir.file('c.db');
    using store = openStore(file);
    const own = store.createSession('alice');
    store.appendUser(own, 'secret plans');
    const id = pick(own);
    let err: unknown;
    try {
      store.ensureSession(id, 'mallory');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SessionNotFoundError);
    expect(err).toMatchObject({ code: 'session_not_found', sessionId: id });
    expect((err as Error).message).not.toContain('secret');
    expect((err as Error).message).not.toContain('alice');
    expect(scalar(file, 'SELECT count(*) FROM sessions')).toBe(1);
    expect(scalar(file, 'SELECT count(*) FROM turns')).toBe(1);
  });

  test('ensureSession with create starts a named session once, then continues it', () => {
    using dir = tempDir();
    const file = dir.file('c.db');
    using store = openStore(file);
    const kitchen = { actor: 'alice', id: 'kitchen' };
    expect(store.ensureSession('kitchen', 'alice', true)).toEqual(kitchen);
    store.appendUser(kitchen, 'turn on the light');
    expect(store.ensureSession('kitchen', 'alice', true)).toEqual(kitchen);
    expect(store.history(kitchen).map((t) => t.content)).toEqual(['turn on the light']);
    expect(store.getSession(kitchen)).toMatchObject({ actor: 'alice' });
    expect(scalar(file, 'SELECT count(*) FROM sessions')).toBe(1);
  });

  test("a name another actor uses starts the caller's own session; neither sees the other", () => {
    using dir = tempDir();
    const file = dir.file('c.db');
    using store = openStore(file);
    const alice = store.ensureSession('kitchen', 'alice', true);
    store.appendUser(alice, 'secret plans');
    const mallory = store.ensureSession('kitchen', 'mallory', true);
    expect(mallory).toEqual({ actor: 'mallory', id: 'kitchen' });
    expect(store.history(mallory)).toEqual([]);
    store.appendUser(mallory, 'what were the plans?');
    expect(roles(store.history(alice))).toEqual(['user:secret plans']);
    expect(roles(store.history(mallory))).toEqual(['user:what were the plans?']);
    expect(store.getSession(alice)).toMatchObject({ actor: 'alice', id: 'kitchen' });
    expect(scalar(file, 'SELECT count(*) FROM sessions')).toBe(2);
  });

  test('without create, a name only another actor uses is unknown to the caller', () => {
    using dir = tempDir();
    const file = dir.file('c.db');
    using store = openStore(file);
    store.appendUser(store.ensureSession('kitchen', 'alice', true), 'secret plans');
    expect(() => store.ensureSession('kitchen', 'mallory')).toThrow(SessionNotFoundError);
    expect(() => store.history({ actor: 'mallory', id: 'kitchen' })).toThrow(SessionNotFoundError);
    expect(scalar(file, 'SELECT count(*) FROM sessions')).toBe(1);
  });

  test('named sessions count against maxSessions like any other', () => {
    using dir = tempDir();
    const file = dir.file('c.db');
    using store = openStore(file, { maxSessions: 2 });
    for (const name of ['a', 'b', 'c']) store.ensureSession(name, 'alice', true);
    expect(scalar(file, 'SELECT count(*) FROM sessions')).toBe(2);
  });

  test('an unknown id and a foreign id give the same error message shape', () => {
    using dir = tempDir();
    using store = openStore(dir.file('c.db'));
    const own = store.createSession('alice');
    const unknown = 'A'.repeat(22);
    const messageOf = (id: string) => {
      try {
        store.ensureSession(id, 'bob');
      } catch (e) {
        return (e as Error).message.replace(id, '<id>');
      }
      throw new Error('expected a throw');
    };
    expect(messageOf(own.id)).toBe(messageOf(unknown));
  });

  test.each([
    ['empty', ''],
    ['over 256 characters', 'x'.repeat(257)],
  ])('an actor that is %s is refused', (_case, actor) => {
    using dir = tempDir();
    using store = openStore(dir.file('c.db'));
    expect(() => store.createSession(actor)).toThrow(RangeError);
  });
});

describe('turns', () => {
  test('history returns the appended turns newest-last', () => {
    using dir = tempDir();
    using store = openStore(dir.file('c.db'));
    const id = store.createSession('alice');
    store.appendUser(id, 'what is 2+2');
    store.appendTool(id, {
      name: 'calculator',
      decision_id: 'd-1',
      outcome: 'ok',
      input: { expression: '2+2' },
      result: { value: 4 },
    });
    store.appendAssistant(id, '4');
    const turns = store.history(id);
    expect(roles(turns)).toEqual(['user:what is 2+2', 'tool:calculator: ok', 'assistant:4']);
    expect(turns[1]?.tool).toEqual({
      name: 'calculator',
      decision_id: 'd-1',
      outcome: 'ok',
      input: { expression: '2+2' },
      result: { value: 4 },
    });
    expect(turns[0]).not.toHaveProperty('tool');
  });

  test('a tool turn keeps its own content and its error payload', () => {
    using dir = tempDir();
    using store = openStore(dir.file('c.db'));
    const id = store.createSession('alice');
    const turn = store.appendTool(id, {
      name: 'web_search',
      decision_id: 'd-2',
      outcome: 'denied',
      content: 'the policy denied web_search',
      error: { code: 'denied', message: 'not listed' },
    });
    expect(turn.content).toBe('the policy denied web_search');
    expect(store.history(id)[0]?.tool).toEqual({
      name: 'web_search',
      decision_id: 'd-2',
      outcome: 'denied',
      error: { code: 'denied', message: 'not listed' },
    });
  });

  test('sessions do not see each other’s turns', () => {
    using dir = tempDir();
    using store = openStore(dir.file('c.db'));
    const a = store.createSession('alice');
    const b = store.createSession('alice');
    store.appendUser(a, 'to a');
    store.appendUser(b, 'to b');
    expect(roles(store.history(a))).toEqual(['user:to a']);
    expect(roles(store.history(b))).toEqual(['user:to b']);
  });

  test.each([1, 3, 10])('with historyLimit %i a session keeps exactly its newest turns', (n) => {
    using dir = tempDir();
    const file = dir.file('c.db');
    using store = openStore(file, { historyLimit: n });
    const id = store.createSession('alice');
    const other = store.createSession('alice');
    store.appendUser(other, 'untouched');
    for (let i = 0; i < n + 7; i++) store.appendUser(id, `m${i}`);
    const expected = Array.from({ length: n }, (_, i) => `user:m${i + 7}`);
    expect(roles(store.history(id))).toEqual(expected);
    expect(
      scalar(
        file,
        'SELECT count(*) FROM turns JOIN sessions ON sessions.key = turns.session WHERE sessions.id = ?',
        [id.id],
      ),
    ).toBe(n);
    expect(roles(store.history(other))).toEqual(['user:untouched']);
  });

  test('history with a limit returns the newest turns, oldest first', () => {
    using dir = tempDir();
    using store = openStore(dir.file('c.db'));
    const id = store.createSession('alice');
    for (let i = 0; i < 5; i++) store.appendUser(id, `m${i}`);
    expect(roles(store.history(id, 2))).toEqual(['user:m3', 'user:m4']);
    expect(store.history(id, 0)).toEqual([]);
    expect(() => store.history(id, -1)).toThrow(RangeError);
  });

  test.each([
    ['appendUser', (s: ReturnType<typeof openStore>, id: SessionRef) => s.appendUser(id, 'x')],
    [
      'appendAssistant',
      (s: ReturnType<typeof openStore>, id: SessionRef) => s.appendAssistant(id, 'x'),
    ],
    [
      'appendTool',
      (s: ReturnType<typeof openStore>, id: SessionRef) =>
        s.appendTool(id, { name: 't', decision_id: 'd', outcome: 'ok' }),
    ],
    ['history', (s: ReturnType<typeof openStore>, id: SessionRef) => s.history(id)],
  ])('%s on an unknown session throws session_not_found and writes nothing', (_name, call) => {
    using dir = tempDir();
    const file = dir.file('c.db');
    using store = openStore(file);
    expect(() => call(store, { actor: 'alice', id: 'missing' })).toThrow(SessionNotFoundError);
    expect(scalar(file, 'SELECT count(*) FROM turns')).toBe(0);
    expect(scalar(file, 'SELECT count(*) FROM sessions')).toBe(0);
  });

  test('an append moves the session’s updated_at', () => {
    using dir = tempDir();
    const clock = new TestClock();
    using store = openStore(dir.file('c.db'), { clock: clock.now });
    const id = store.createSession('alice');
    clock.advance(60_000);
    store.appendUser(id, 'later');
    expect(store.getSession(id)?.updated_at).toBe('2026-01-01T00:01:00.000Z');
    expect(store.getSession(id)?.created_at).toBe('2026-01-01T00:00:00.000Z');
  });
});

describe('lifecycle', () => {
  test('turns survive close and reopen', () => {
    using dir = tempDir();
    const file = dir.file('c.db');
    const first = openStore(file);
    const id = first.createSession('alice');
    first.appendUser(id, 'remember me');
    first.close();
    using second = openStore(file);
    expect(second.ensureSession(id.id, 'alice')).toEqual(id);
    expect(roles(second.history(id))).toEqual(['user:remember me']);
  });

  test("a tool turn's provenance label survives close and reopen, and is what a later turn reads", () => {
    using dir = tempDir();
    const file = dir.file('c.db');
    const first = openStore(file);
    const id = first.createSession('alice');
    const label: ToolRecordLabel = {
      trust: 'untrusted',
      private: true,
      sources: ['calendar:home', 'https://evil.example/a'],
    };
    first.appendTool(id, {
      name: 'calendar_read',
      decision_id: 'd-1',
      outcome: 'ok',
      result: { events: [{ summary: 'door code 4711' }] },
      label,
    });
    first.close();
    using second = openStore(file);
    const history = second.history(id);
    expect(history[0]?.tool?.label).toEqual(label);
    // the brain after a restart: the label stored wins over anything it would derive now
    // (no spec known: an unknown tool would be untrusted and private without sources)
    const read = readItemsOf(history, () => null);
    expect(read.map((r) => [r.tool, r.decisionId, r.label])).toEqual([
      ['calendar_read', 'd-1', label],
    ]);
  });

  test('every method after close throws conversations_closed naming the file; close is idempotent', () => {
    using dir = tempDir();
    const file = dir.file('c.db');
    const store = openStore(file);
    const id = store.createSession('alice');
    store.close();
    store.close();
    const calls = [
      () => store.createSession('alice'),
      () => store.ensureSession(id.id, 'alice'),
      () => store.getSession(id),
      () => store.history(id),
      () => store.appendUser(id, 'x'),
      () => store.prune(),
    ];
    for (const call of calls) {
      let err: unknown;
      try {
        call();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConversationStoreError);
      expect(err).toMatchObject({ code: 'conversations_closed', path: file });
    }
  });

  test.each([
    ['historyLimit', { historyLimit: 0 }],
    ['maxSessions', { maxSessions: 0 }],
    ['idleTtlMs', { idleTtlMs: -1 }],
    ['historyLimit', { historyLimit: 1.5 }],
  ])('option %s out of range is refused before any file is made', (name, opts) => {
    using dir = tempDir();
    const file = dir.file('sub/c.db');
    expect(() => openStore(file, opts)).toThrow(new RegExp(`option ${name}`));
    expect(existsSync(dir.file('sub'))).toBe(false);
  });
});
