// What scripts/setup.mjs prints while it works (issue 29: a first `npm start` was two minutes
// of silence after "installing npm packages"): a line when a phase starts, a heartbeat with
// the elapsed time and what npm is doing while a long phase runs, and the elapsed time when
// it ends. Plain JavaScript, as setup.mjs runs before anything is compiled; the clock and
// the timer are injected so test/unit/scripts checks the lines without waiting.

/** How often a running phase says it is still running. */
export const HEARTBEAT_MS = 15_000;

/** `0.4 s`, `12 s`, `2 min 05 s`: an elapsed time for a person. */
export function formatElapsed(ms) {
  const s = Math.max(0, ms) / 1000;
  if (s < 10) return `${s.toFixed(1)} s`;
  if (s < 60) return `${Math.floor(s)} s`;
  const whole = Math.floor(s);
  return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, '0')} s`;
}

/**
 * Starts a phase: says `<name>…` now, `<name>: <elapsed>…[, <activity>]` every `every` ms
 * until it ends, and `<name>: done in <elapsed>` (or `failed after`) at the end.
 */
export function startPhase(name, options) {
  const {
    say,
    now = Date.now,
    every = HEARTBEAT_MS,
    schedule = setInterval,
    cancel = clearInterval,
  } = options;
  const started = now();
  let activity;
  const elapsed = () => formatElapsed(now() - started);
  say(`${name}…`);
  const timer = schedule(() => {
    say(`${name}: ${elapsed()}…${activity === undefined ? '' : `, ${activity}`}`);
  }, every);
  timer?.unref?.();
  let ended = false;
  const end = (word) => {
    if (ended) return;
    ended = true;
    cancel(timer);
    say(`${name}: ${word} ${elapsed()}`);
  };
  return {
    /** What the heartbeat line adds after the time, until the next call. */
    doing(text) {
      activity = text;
    },
    done: () => end('done in'),
    failed: () => end('failed after'),
  };
}

/**
 * Reads `npm ci --foreground-scripts` output line by line and says what npm is doing, for the
 * heartbeat: `read(line)` returns the new activity, or undefined when the line says nothing
 * new. npm prints `> <pkg>@<version> <script>` before each install script; better-sqlite3's
 * is the long one when no prebuilt binary can be downloaded (offline, or a platform without
 * one): prebuild-install warns, and node-gyp compiles SQLite from source.
 */
export function npmActivity() {
  let pkg = 'a package';
  return {
    read(line) {
      const text = line.trim();
      const script = /^> (@?[^@\s]+)@\S+ (preinstall|install|postinstall)$/.exec(text);
      if (script) {
        pkg = script[1];
        return `running ${pkg}'s ${script[2]} script`;
      }
      if (/^prebuild-install warn\b/i.test(text)) {
        return `building ${pkg} from source: no prebuilt binary could be downloaded`;
      }
      if (text === 'gyp info spawn make') {
        return `compiling ${pkg}'s native code (a few minutes on a small machine)`;
      }
      return undefined;
    },
  };
}
