import { execFileSync, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CLI, startCli, type RunningCli } from '../../helpers/cli.js';
import { allShellBlocks, where, type DocBlock } from '../../helpers/doc-blocks.js';
import {
  FAKE_HA_TOKEN,
  startFakeHomeAssistant,
  type FakeHomeAssistant,
} from '../../helpers/fake-home-assistant.js';
import {
  startFakeSearxng,
  type FakeSearch,
  type FakeSearxngOptions,
} from '../../helpers/fake-search.js';
import { startRadicale, type TestRadicale } from '../../helpers/radicale.js';

// Issue 15, scope 6: the docs' shell examples that talk to a running stack, run as written.
// Every block marked `<!-- doc-test: run -->` in README.md or docs/ runs in bash (`set -e`,
// `pipefail`) in the directory `caesar up` was started from, an empty one (up runs from any
// directory: its policy and intents are the shipped ones, copied into ./var on first start),
// with `caesar` on PATH as `npm link` puts it.
// The stack has every backend a reader would point it at (a real Radicale, a loopback SearXNG
// and Home Assistant). The only change to a block's text: 127.0.0.1:8420 becomes the port the
// stack took; a command that waits for typing (`caesar chat` alone) reads `/exit`. `curl`
// fails on an HTTP error status (the 401 of a wrong token, the 404 of a wrong path), so a
// block passes only when every command in it succeeded.

const BLOCK_TIMEOUT_MS = 60_000;

/** What a block's output must show, beyond every command succeeding. */
const SHOWS: Record<string, RegExp[]> = {
  'caesar chat "what is 17 * 23"': [/391/],
  '"message":"what is 17 * 23"': [/"reply":"17 \* 23 = 391"/],
  '/healthz': [/"status":"ok"/],
  '/v1/whoami': [/^\{"name":"operator"\}$/m],
  // a model's search after a private read: the shipped policy's after_private gate holds it
  '"flow":{"after_private":true}': [/"outcome":"confirm"/, /"gate":"after_private"/],
  // every backend is up and granted but Home Assistant's services: the reply says so
  // the short list, then `/help setup`'s every step (ADR 0074)
  'caesar chat "what can you do"': [
    /do arithmetic/,
    /search the web/,
    /or the Tools panel on the dashboard/,
    /allowed_services/,
  ],
};

const DAY_MS = 86_400_000;

/** A weekly standup that started four weeks ago, so this week has one. */
function standup(): string {
  const now = new Date();
  const monday = new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) -
      ((now.getUTCDay() + 6) % 7) * DAY_MS -
      28 * DAY_MS,
  );
  const start = `${monday.toISOString().slice(0, 10).replaceAll('-', '')}T090000Z`;
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//CAESAR tests//EN',
    'BEGIN:VEVENT',
    'UID:standup@caesar.test',
    `DTSTAMP:${start}`,
    `DTSTART:${start}`,
    'DURATION:PT15M',
    'RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR',
    'SUMMARY:Standup',
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

const runnable = allShellBlocks().filter((b) => b.test?.kind === 'run');

let dir: string;
let bin: string;
let port: number;
let up: RunningCli | undefined;
let dav: TestRadicale | undefined;
let searx: FakeSearch<FakeSearxngOptions> | undefined;
let ha: FakeHomeAssistant | undefined;

/** The environment of a reader's shell: no CAESAR_* settings, `caesar` and a strict `curl` first. */
function readerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CAESAR_')) env[k] = v;
  env.PATH = `${bin}:${process.env.PATH ?? ''}`;
  return env;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-docs-'));
  bin = join(dir, '.bin');
  await mkdir(bin);
  // `npm link` puts the CLI on PATH as `caesar`; a test must not touch the global prefix
  const caesar = join(bin, 'caesar');
  await writeFile(caesar, `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  const curl = join(bin, 'curl');
  const realCurl = execFileSync('sh', ['-c', 'command -v curl'], { encoding: 'utf8' }).trim();
  await writeFile(curl, `#!/bin/sh\nexec "${realCurl}" --fail-with-body --max-time 30 "$@"\n`);
  await Promise.all([chmod(caesar, 0o755), chmod(curl, 0o755)]);

  dav = await startRadicale({ users: { alice: 'alice-pw' } });
  await dav.makeCalendar('alice', 'work', 'Work');
  await dav.putEvent('alice', 'work', 'standup', standup());
  searx = await startFakeSearxng({
    results: [
      { url: 'https://docs.nats.io/nats-concepts/jetstream', title: 'JetStream | NATS Docs' },
    ],
  });
  ha = await startFakeHomeAssistant({
    entities: [
      { entity_id: 'light.kitchen', state: 'off', attributes: { friendly_name: 'Kitchen' } },
    ],
  });
  await writeFile(join(dir, 'ha-token'), `${FAKE_HA_TOKEN}\n`, { mode: 0o600 });
  up = startCli(
    ['up', '--nats-port', '0', '--api-port', '0'],
    {
      CAESAR_TOOLS__CALENDAR__CALDAV_URL: dav.url,
      CAESAR_TOOLS__CALENDAR__USERNAME: 'alice',
      CAESAR_TOOLS__CALENDAR__PASSWORD: 'alice-pw',
      CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL: searx.url,
      CAESAR_HA__URL: ha.url,
      CAESAR_HA__TOKEN_FILE: join(dir, 'ha-token'),
    },
    { cwd: dir },
  );
  await up.waitForLine(/^ready: /, 90_000);
  const runtime = JSON.parse(await readFile(join(dir, 'var/runtime.json'), 'utf8')) as {
    api_url: string;
  };
  port = Number(new URL(runtime.api_url).port);
}, 120_000);

afterAll(async () => {
  if (up && up.child.exitCode === null) {
    up.child.kill('SIGINT');
    await up.exited;
  }
  await Promise.allSettled([dav?.stop(), searx?.close(), ha?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
}, 30_000);

/** Runs one block in bash as a reader would; resolves with its exit code and output. */
function runBlock(b: DocBlock): Promise<{ code: number | null; out: string; err: string }> {
  // a doc's blocks are one reader's session: what an earlier block set (TOKEN=…) stays set
  const state = join(dir, `.state-${b.doc.replaceAll('/', '_')}`);
  const keep = [...b.body.matchAll(/^(?:export\s+)?([A-Z_][A-Z0-9_]*)=/gm)].map((m) => m[1]!);
  const save = keep.map((v) => `declare -p ${v} >> '${state}'`).join('\n');
  const script =
    `set -xeo pipefail\n[ -f '${state}' ] && . '${state}'\n` +
    `${b.body.replaceAll('127.0.0.1:8420', `127.0.0.1:${port}`)}\n${save}\n`;
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], {
      cwd: dir,
      env: readerEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    // an interactive command (`caesar chat` alone) reads the reader typing /exit; a block
    // that reads nothing may have exited before the write lands (EPIPE): that is no failure
    child.stdin.on('error', () => undefined);
    child.stdin.end('/exit\n');
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => {
      err += `\n[doc test] killed after ${BLOCK_TIMEOUT_MS} ms`;
      process.kill(-child.pid!, 'SIGKILL');
    }, BLOCK_TIMEOUT_MS);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

describe('shell examples marked run, against a real stack', () => {
  test('there are some', () => {
    expect(runnable.length).toBeGreaterThan(5);
  });

  test.each(runnable.map((b) => [where(b), b] as const))(
    '%s runs as written',
    async (_where, block) => {
      const r = await runBlock(block);
      expect(r.code, `exit ${r.code}; stdout:\n${r.out}\nstderr (trace):\n${r.err}`).toBe(0);
      for (const [needle, patterns] of Object.entries(SHOWS)) {
        if (!block.body.includes(needle)) continue;
        for (const p of patterns) expect(r.out, `${needle} shows ${p}`).toMatch(p);
      }
    },
    BLOCK_TIMEOUT_MS + 10_000,
  );
});
