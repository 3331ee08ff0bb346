import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { CONVERSATIONS_SCHEMA_VERSION } from '../../../../src/brain/conversations/schema.js';
import { waitFor } from '../../../helpers/wait.js';
import { openStore, query, scalar, tempDir } from '../../../unit/brain/conversations/fixtures.js';

/** The compiled store, which the child processes load; `npm test` builds it first. */
const COMPILED = fileURLToPath(
  new URL('../../../../dist/src/brain/conversations/index.js', import.meta.url),
);

/**
 * A writer in its own process: `node -e CHILD <file> <own session> <other session> <n>`, each
 * session written `<actor>:<id>`.
 * Appends to its own session until it has written `n` turns and has seen the other process
 * append meanwhile (so the two really overlapped), appends once more so the other sees it
 * too, then prints how many it wrote. With no
 * sessions given it only opens the file (racing the other to create and migrate it).
 */
const CHILD = `
const [file, own, other, n] = process.argv.slice(1);
const { openConversationStore } = await import(process.env.STORE_URL);
console.log('opening');
const store = openConversationStore({ file, historyLimit: 50 });
if (own === undefined) { store.createSession('racer'); store.close(); process.exit(0); }
// a session as \`<actor>:<id>\`
const ref = (s) => ({ actor: s.slice(0, s.indexOf(':')), id: s.slice(s.indexOf(':') + 1) });
const [ownRef, otherRef] = [ref(own), ref(other)];
const latest = () => store.history(otherRef, 1)[0]?.content;
const first = latest();
const pause = new Int32Array(new SharedArrayBuffer(4));
let i = 0;
let sawOther = false;
// A hang detector, not a speed bound: a loaded machine may start the other process late.
const deadline = Date.now() + 60000;
while (i < Number(n) || !sawOther) {
  if (Date.now() > deadline) { console.error('the other writer never appended'); process.exit(2); }
  store.appendUser(ownRef, own + ':' + i++);
  if (!sawOther && latest() !== first) sawOther = true;
  // A breath between transactions: a writer that takes the lock again at once can starve the
  // other past SQLite's busy timeout, which tests the scheduler, not the store.
  if (i % 8 === 0) Atomics.wait(pause, 0, 0, 1);
}
// One more after seeing the other: the other read its first value before the append this one saw,
// so if it is still looping it sees this one change. Without it, a child could exit right
// after seeing the other's first append and leave the other waiting for a change.
store.appendUser(ownRef, own + ':' + i++);
store.close();
console.log(String(i));
`;

interface ChildRun {
  /** Everything the child printed so far. */
  output(): string;
  done: Promise<{ code: number | null; out: string; err: string }>;
}

function startChild(args: string[]): ChildRun {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, ...args], {
    env: { ...process.env, STORE_URL: pathToFileURL(COMPILED).href },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return {
    output: () => out,
    done: new Promise((resolve) =>
      child.once('close', (code) => resolve({ code, out: out.replace('opening\n', ''), err })),
    ),
  };
}

const runChild = (args: string[]) => startChild(args).done;

function assertBuilt(): void {
  if (!existsSync(COMPILED)) {
    throw new Error(`${COMPILED} is missing: run \`npm run build\` (npm test does it)`);
  }
}

describe('two stores on one file', () => {
  test('two opens in one process see each other’s writes and keep the cap together', () => {
    using dir = tempDir();
    const file = dir.file('c.db');
    using a = openStore(file, { historyLimit: 4 });
    using b = openStore(file, { historyLimit: 4 });
    const id = a.createSession('alice');
    expect(b.ensureSession(id.id, 'alice')).toEqual(id);
    for (let i = 0; i < 6; i++) (i % 2 === 0 ? a : b).appendUser(id, `m${i}`);
    const expected = ['m2', 'm3', 'm4', 'm5'];
    expect(a.history(id).map((t) => t.content)).toEqual(expected);
    expect(b.history(id).map((t) => t.content)).toEqual(expected);
    expect(() => b.ensureSession(id.id, 'mallory')).toThrow('not found');
    expect(query(file, 'PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
  });

  test('two processes appending at the same time lose nothing and corrupt nothing', async () => {
    assertBuilt();
    using dir = tempDir();
    const file = dir.file('c.db');
    const setup = openStore(file);
    const sessions = [setup.createSession('alice'), setup.createSession('bob')];
    setup.close();
    const [x, y] = sessions.map((r) => `${r.actor}:${r.id}`) as [string, string];
    const refOf = (s: string) => sessions.find((r) => `${r.actor}:${r.id}` === s)!;
    const [rx, ry] = await Promise.all([
      runChild([file, x, y, '400']),
      runChild([file, y, x, '400']),
    ]);
    expect(rx, rx.err).toMatchObject({ code: 0 });
    expect(ry, ry.err).toMatchObject({ code: 0 });
    using store = openStore(file, { historyLimit: 50 });
    for (const [id, r] of [
      [x, rx],
      [y, ry],
    ] as const) {
      const n = Number(r.out.trim());
      expect(n).toBeGreaterThanOrEqual(400);
      const newest = Array.from({ length: 50 }, (_, k) => `${id}:${n - 50 + k}`);
      expect(store.history(refOf(id)).map((t) => t.content)).toEqual(newest);
    }
    expect(scalar(file, 'SELECT count(*) FROM turns')).toBe(100);
    expect(query(file, 'PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
  }, 90_000);

  test('processes opening the same new file at once migrate it exactly once', async () => {
    assertBuilt();
    using dir = tempDir();
    const file = dir.file('c.db');
    // An empty WAL file whose write lock we hold: the openers all find version 0, then queue
    // on the lock, and race to migrate once it is released.
    const gate = new Database(file);
    gate.pragma('journal_mode = WAL');
    gate.exec('BEGIN IMMEDIATE');
    const children = [startChild([file]), startChild([file]), startChild([file])];
    try {
      await waitFor(
        () => children.every((c) => c.output().includes('opening')),
        'every child to start opening',
        15_000,
      );
    } finally {
      gate.exec('ROLLBACK');
      gate.close();
    }
    const results = await Promise.all(children.map((c) => c.done));
    for (const r of results) expect(r, r.err).toMatchObject({ code: 0 });
    expect(scalar(file, 'PRAGMA user_version')).toBe(CONVERSATIONS_SCHEMA_VERSION);
    expect(scalar(file, 'SELECT count(*) FROM sessions')).toBe(3);
    expect(query(file, 'PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
  });
});
