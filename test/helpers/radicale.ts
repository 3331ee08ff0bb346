import { signalGroup, spawnChild } from '../../src/process/index.js';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export const RADICALE_INSTALL_HINT =
  'radicale was not found in /usr/bin or on PATH. Install it with `apt-get install -y radicale` ' +
  '(Debian/Ubuntu) or `pip install radicale==3.1.8`.';

export interface TestRadicale extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/`, the server root (principals are `/<user>/`). */
  readonly url: string;
  readonly port: number;
  /** Everything the server logged so far (bounded), for diagnostics. */
  output(): string;
  /** MKCALENDAR `/<user>/<slug>/` with a display name; returns its URL. */
  makeCalendar(
    user: string,
    slug: string,
    displayName: string,
    opts?: { components?: string[] },
  ): Promise<string>;
  /** PUTs one calendar object (iCalendar text) as `/<user>/<slug>/<name>.ics`. */
  putEvent(user: string, slug: string, name: string, ics: string): Promise<void>;
  /**
   * PUTs a whole calendar as `/<user>/<slug>/` in one request: Radicale replaces the
   * collection with one object per UID in `ics` (its display name is `X-WR-CALNAME`). Much
   * faster than one `putEvent` per object, as Radicale checks every PUT against the whole
   * collection.
   */
  putCalendar(user: string, slug: string, ics: string): Promise<void>;
  /** Stops the server, waits for it to exit, removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

export interface RadicaleOptions {
  /** Accounts, name -> password (htpasswd, plain). */
  users: Record<string, string>;
  /** How long to wait for the first HTTP answer. @default 30000 */
  readyTimeoutMs?: number;
}

/**
 * The one way tests get a CalDAV server: a real Radicale 3 on a free loopback port (it binds
 * port 0 and logs the port), with htpasswd accounts, owner_only rights and its own temporary
 * storage folder. Ready once it answers HTTP; killed on any failure and on dispose
 * (`await using dav = await startRadicale({ users: { alice: 'pw' } })`).
 */
export async function startRadicale(opts: RadicaleOptions): Promise<TestRadicale> {
  const binary = findRadicale();
  const dir = await mkdtemp(join(tmpdir(), 'caesar-radicale-'));
  const users = Object.entries(opts.users)
    .map(([u, p]) => `${u}:${p}\n`)
    .join('');
  await writeFile(join(dir, 'users'), users, { mode: 0o600 });
  await writeFile(join(dir, 'config'), config(dir));
  // under the guard, so no Radicale outlives its test even when the test process is killed
  const started = spawnChild(binary, ['--config', join(dir, 'config')], {
    guard: 'caesar-radicale',
  });
  const child = started.child;
  let output = '';
  const append = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-MAX_OUTPUT);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = started.exited.then(() => undefined);
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) signalGroup(child.pid, 'SIGTERM');
      const kill = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), 5000);
      await exited;
      clearTimeout(kill);
      child.stdin?.destroy();
      await rm(dir, { recursive: true, force: true });
    })());

  try {
    const deadline = Date.now() + (opts.readyTimeoutMs ?? 30_000);
    const port = await listeningPort(() => output, exited, deadline);
    const url = `http://127.0.0.1:${port}/`;
    await answersHttp(url, exited, deadline, () => output);
    return {
      url,
      port,
      output: () => output,
      makeCalendar: (user, slug, name, o) =>
        makeCalendar(url, auth(opts.users, user), `${user}/${slug}/`, name, o?.components),
      putEvent: (user, slug, name, ics) =>
        putEvent(url, auth(opts.users, user), `${user}/${slug}/${name}.ics`, ics),
      putCalendar: (user, slug, ics) =>
        putEvent(url, auth(opts.users, user), `${user}/${slug}/`, ics),
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Finds the radicale binary (Debian's /usr/bin first) or throws with an install hint. */
export function findRadicale(): string {
  const dirs = ['/usr/bin', ...(process.env.PATH ?? '').split(delimiter).filter(Boolean)];
  for (const d of dirs) {
    try {
      accessSync(join(d, 'radicale'), constants.X_OK);
      return join(d, 'radicale');
    } catch {
      // try the next one
    }
  }
  throw new Error(RADICALE_INSTALL_HINT);
}

const MAX_OUTPUT = 64 * 1024;
const LISTEN_RE = /Listening on '\[?([^\]']+)\]?:(\d+)'/;

function config(dir: string): string {
  return [
    '[server]',
    'hosts = 127.0.0.1:0',
    '[auth]',
    'type = htpasswd',
    `htpasswd_filename = ${join(dir, 'users')}`,
    'htpasswd_encryption = plain',
    // no pause after a wrong password: the tests try one on purpose
    'delay = 0',
    '[rights]',
    'type = owner_only',
    '[storage]',
    `filesystem_folder = ${join(dir, 'collections')}`,
    '[web]',
    'type = none',
    '[logging]',
    // info: the line that names the bound port
    'level = info',
    '',
  ].join('\n');
}

async function listeningPort(
  output: () => string,
  exited: Promise<void>,
  deadline: number,
): Promise<number> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    const m = LISTEN_RE.exec(output());
    if (m) return Number(m[2]);
    if (gone) throw new Error(`radicale exited before it listened:\n${output().trim()}`);
    if (Date.now() > deadline)
      throw new Error(`radicale did not listen in time:\n${output().trim()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Polls until the server answers any HTTP status. */
async function answersHttp(
  url: string,
  exited: Promise<void>,
  deadline: number,
  output: () => string,
): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    try {
      const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(2000) });
      await res.body?.cancel();
      return;
    } catch {
      if (gone) throw new Error(`radicale exited before it answered:\n${output().trim()}`);
      if (Date.now() > deadline)
        throw new Error(`radicale did not answer HTTP in time:\n${output().trim()}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

function auth(users: Record<string, string>, user: string): string {
  const password = users[user];
  if (password === undefined) throw new Error(`no Radicale user '${user}'`);
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

function xmlText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

async function makeCalendar(
  root: string,
  authorization: string,
  path: string,
  displayName: string,
  components = ['VEVENT'],
): Promise<string> {
  const comps = components.map((c) => `<C:comp name="${c}"/>`).join('');
  const body =
    '<?xml version="1.0" encoding="utf-8"?>' +
    '<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop>' +
    `<D:displayname>${xmlText(displayName)}</D:displayname>` +
    `<C:supported-calendar-component-set>${comps}</C:supported-calendar-component-set>` +
    '</D:prop></D:set></C:mkcalendar>';
  const url = new URL(path, root).href;
  const res = await fetch(url, {
    method: 'MKCALENDAR',
    headers: { authorization, 'content-type': 'application/xml; charset=utf-8' },
    body,
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`MKCALENDAR ${path}: HTTP ${res.status} ${text}`);
  return url;
}

async function putEvent(root: string, authorization: string, path: string, ics: string) {
  const res = await fetch(new URL(path, root), {
    method: 'PUT',
    headers: { authorization, 'content-type': 'text/calendar; charset=utf-8' },
    body: ics,
  });
  const text = await res.text();
  if (res.status !== 201 && res.status !== 204) {
    throw new Error(`PUT ${path}: HTTP ${res.status} ${text}`);
  }
}
