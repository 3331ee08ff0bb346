import { describe, expect, test } from 'vitest';
import {
  formatElapsed,
  HEARTBEAT_MS,
  npmActivity,
  startPhase,
} from '../../../scripts/setup-progress.mjs';

// Issue 29, point 3: a first `npm start` said `installing npm packages (npm ci)…` and then
// nothing for minutes. Each phase of scripts/setup.mjs now says it started, says every 15 s
// that it still runs and what npm is doing, and ends with its elapsed time.

/** A hand-turned clock and timer: `advance(ms)` fires the heartbeat as a real one would. */
function fakeTime() {
  let now = 1_000_000;
  let tick: (() => void) | undefined;
  let every = 0;
  let due = 0;
  return {
    now: () => now,
    schedule: (fn: () => void, ms: number) => {
      tick = fn;
      every = ms;
      due = now + ms;
      return 'timer';
    },
    cancel: (timer: unknown) => {
      expect(timer).toBe('timer');
      tick = undefined;
    },
    advance(ms: number) {
      const end = now + ms;
      while (tick !== undefined && due <= end) {
        now = due;
        due += every;
        tick();
      }
      now = end;
    },
  };
}

describe('formatElapsed', () => {
  test.each([
    [0, '0.0 s'],
    [430, '0.4 s'],
    [9_940, '9.9 s'],
    [45_200, '45 s'],
    [60_000, '1 min 00 s'],
    [125_900, '2 min 05 s'],
    [-5, '0.0 s'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatElapsed(ms)).toBe(text);
  });
});

describe('startPhase', () => {
  test('says it started, beats every 15 s with what it is doing, and its time at the end', () => {
    const time = fakeTime();
    const lines: string[] = [];
    const phase = startPhase('npm ci', { say: (l) => lines.push(l), ...time });
    expect(HEARTBEAT_MS).toBe(15_000);
    time.advance(14_000);
    expect(lines).toEqual(['npm ci…']);
    time.advance(1_000);
    phase.doing('building better-sqlite3 from source');
    time.advance(30_000);
    time.advance(82_300);
    phase.done();
    time.advance(60_000);
    phase.failed();
    expect(lines).toEqual([
      'npm ci…',
      'npm ci: 15 s…',
      'npm ci: 30 s…, building better-sqlite3 from source',
      'npm ci: 45 s…, building better-sqlite3 from source',
      'npm ci: 1 min 00 s…, building better-sqlite3 from source',
      'npm ci: 1 min 15 s…, building better-sqlite3 from source',
      'npm ci: 1 min 30 s…, building better-sqlite3 from source',
      'npm ci: 1 min 45 s…, building better-sqlite3 from source',
      'npm ci: 2 min 00 s…, building better-sqlite3 from source',
      'npm ci: done in 2 min 07 s',
    ]);
  });

  test('a failed phase says how long it ran', () => {
    const time = fakeTime();
    const lines: string[] = [];
    startPhase('build (tsc, incremental)', { say: (l) => lines.push(l), ...time });
    time.advance(3_250);
    const phase = startPhase('apt-get (installing nats-server)', {
      say: (l) => lines.push(l),
      ...time,
    });
    time.advance(1_500);
    phase.failed();
    expect(lines.at(-1)).toBe('apt-get (installing nats-server): failed after 1.5 s');
  });
});

describe('npmActivity', () => {
  test("follows npm ci --foreground-scripts through better-sqlite3's native build", () => {
    const activity = npmActivity();
    const said = [
      'npm warn deprecated something@1.0.0: use another',
      '',
      '> better-sqlite3@12.11.1 install',
      '> prebuild-install || node-gyp rebuild --release',
      '',
      'prebuild-install warn install getaddrinfo ENOTFOUND github.com',
      'gyp info it worked if it ends with ok',
      'gyp info spawn make',
      '  CC(target) Release/obj.target/sqlite3/gen/sqlite3/sqlite3.o',
      'added 343 packages in 5m',
    ].map((l) => activity.read(l));
    expect(said.filter((s) => s !== undefined)).toEqual([
      "running better-sqlite3's install script",
      'building better-sqlite3 from source: no prebuilt binary could be downloaded',
      "compiling better-sqlite3's native code (a few minutes on a small machine)",
    ]);
  });

  test('a scoped package keeps its scope', () => {
    expect(npmActivity().read('> @scope/pkg@1.2.3 postinstall')).toBe(
      "running @scope/pkg's postinstall script",
    );
  });
});
