/**
 * The network tools' own cost per call: each tool's handler (input parsed, handler run,
 * output parsed, as the SDK does) against a loopback backend that answers at once, next to
 * the same HTTP requests replayed by a bare undici client. The difference is what the tool
 * itself adds (building requests, parsing, normalising, recurrence expansion, matching):
 * worker time minus backend time.
 *
 * SearXNG and Home Assistant answers are canned in their documented wire format. The CalDAV
 * answers are recorded from a real Radicale (when installed) once, then replayed at once.
 * Worker calls and replays alternate one by one, so load drift hits both alike.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/run.js tools
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import type { ToolDefinition } from '../src/legion/index.js';
import { silentLogger } from '../src/log/index.js';
import { createCalendarReadTool } from '../workers/calendar_read/index.js';
import { createCallServiceTool } from '../workers/call_service/index.js';
import { createHaEntitiesTool } from '../workers/ha_entities/index.js';
import { createWebSearchTool } from '../workers/web_search/index.js';
import { benchSize, percentile, type BenchContext } from './harness.js';

const WARMUP = benchSize(200, 5);
const CALLS = benchSize(1500, 20);

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

type Answer = { status: number; headers: Record<string, string>; body: string };

/** A loopback backend that answers each request at once from `answer`, and logs them. */
class InstantBackend {
  readonly seen: Seen[] = [];
  #server: Server | undefined;
  url = '';
  constructor(readonly answer: (req: Seen) => Answer | Promise<Answer>) {}

  async start(): Promise<this> {
    this.#server = createServer((req, res) => void this.#on(req, res));
    await new Promise<void>((r) => this.#server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async #on(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) {
        headers[k] = v;
      }
    }
    const seen = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    this.seen.push(seen);
    const a = await this.answer(seen);
    res.writeHead(a.status, { ...a.headers, 'content-length': Buffer.byteLength(a.body) });
    res.end(a.body);
  }

  close(): Promise<void> {
    return new Promise((r) => {
      this.#server?.closeAllConnections();
      this.#server?.close(() => r());
    });
  }
}

const json = (body: unknown, status = 200): Answer => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** One tool in the bench: its definition, config section, input and backend. */
interface Case {
  name: string;
  tool: ToolDefinition;
  config: unknown;
  input: unknown;
  backend: InstantBackend;
}

/** Runs the handler the way the SDK does, with a hand-built context. */
function caller(c: Case): () => Promise<void> {
  const worker = { id: 'bench', host: 'bench' };
  return async () => {
    const input: unknown = c.tool.input.parse(c.input);
    const ctx = {
      logger: silentLogger(),
      signal: AbortSignal.timeout(10_000),
      decisionId: 'bench',
      deadline: Date.now() + 10_000,
      config: c.config,
      worker,
    };
    c.tool.output.parse(await c.tool.handler(input, ctx));
  };
}

/** The requests one call made, replayed by a bare undici client on a keep-alive pool. */
function replayer(backend: InstantBackend, calls: Seen[], agent: Agent): () => Promise<void> {
  return async () => {
    for (const s of calls) {
      const res = await request(`${backend.url}${s.url}`, {
        method: s.method as 'GET',
        headers: s.headers,
        body: s.body === '' ? undefined : s.body,
        dispatcher: agent,
      });
      await res.body.text();
    }
  };
}

async function measure(ctx: BenchContext, c: Case): Promise<void> {
  const startCtx = { logger: silentLogger(), config: c.config, worker: { id: 'b', host: 'b' } };
  await c.tool.start?.(startCtx);
  const agent = new Agent({ connections: 8 });
  try {
    const call = caller(c);
    for (let i = 0; i < WARMUP; i++) await call();
    // the steady state: what one call asks of the backend once caches are warm
    c.backend.seen.length = 0;
    await call();
    const requests = [...c.backend.seen];
    const replay = replayer(c.backend, requests, agent);
    for (let i = 0; i < WARMUP; i++) await replay();
    const worker: number[] = [];
    const backend: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const order = i % 2 === 0 ? [call, replay] : [replay, call];
      for (const fn of order) {
        const t = performance.now();
        await fn();
        (fn === call ? worker : backend).push((performance.now() - t) * 1000);
      }
    }
    const w = percentile(worker, 50);
    const b = percentile(backend, 50);
    const what = requests.map((r) => `${r.method} ${r.url.split('?')[0]}`).join(', ') || 'none';
    ctx.figure(`${c.name}: backend requests per call`, requests.length, `(${what})`);
    if (requests.length > 0) {
      ctx.figure(`${c.name}: same requests replayed, p50`, b, 'us');
      ctx.figure(`${c.name}: tool call p50`, w, 'us', { baseline: b });
    } else {
      ctx.figure(`${c.name}: tool call p50 (no request: cache)`, w, 'us');
    }
    ctx.figure(`${c.name}: tool's own overhead p50`, w - b, 'us');
    ctx.figure(`${c.name}: tool call p90`, percentile(worker, 90), 'us');
  } finally {
    await c.tool.stop?.();
    await agent.close();
    await c.backend.close();
  }
}

// ---- web_search against SearXNG ---------------------------------------------------------

function searxngAnswer(): Answer {
  const results = Array.from({ length: 10 }, (_, i) => ({
    url: `https://example${i}.org/page/${i}`,
    title: `Result <b>${i}</b> about NATS JetStream &amp; streams`,
    content: `A snippet of result ${i}: ${'words and more words '.repeat(8)}`,
    engine: 'duckduckgo',
    publishedDate: '2026-10-01T12:00:00',
  }));
  return json({
    query: 'nats jetstream',
    number_of_results: 10,
    results,
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: [],
    unresponsive_engines: [],
  });
}

async function webSearchCase(): Promise<Case> {
  const backend = await new InstantBackend(() => searxngAnswer()).start();
  const tool = createWebSearchTool();
  const config = tool.config!.parse({ searxng_url: backend.url });
  return {
    name: 'web_search (SearXNG, 10 results)',
    tool,
    config,
    input: { query: 'nats jetstream' },
    backend,
  };
}

// ---- Home Assistant --------------------------------------------------------------------

const TOKEN = 'bench-token-0123456789';

function haState(entity_id: string, state: string, name: string) {
  const at = new Date().toISOString();
  return {
    entity_id,
    state,
    attributes: { friendly_name: name },
    last_changed: at,
    last_updated: at,
    context: { id: 'ctx', parent_id: null, user_id: null },
  };
}

/** 200 entities; `light.bench` flips on every toggle, as a device that reports at once. */
function homeAssistant(): InstantBackend {
  const states = new Map<string, ReturnType<typeof haState>>();
  const rooms = ['Kitchen', 'Hall', 'Bedroom', 'Office', 'Garage'];
  for (let i = 0; i < 200; i++) {
    const room = rooms[i % rooms.length]!;
    states.set(`light.l${i}`, haState(`light.l${i}`, 'off', `${room} Lamp ${i}`));
  }
  states.set('light.bench', haState('light.bench', 'off', 'Bench Light'));
  const services = [
    { domain: 'light', services: { toggle: { name: 'Toggle', description: '', fields: {} } } },
  ];
  return new InstantBackend((req) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return json({ message: '401' }, 401);
    const path = req.url.split('?')[0] ?? '';
    if (path === '/api/services') return json(services);
    if (path === '/api/states') return json([...states.values()]);
    if (path.startsWith('/api/states/')) {
      const s = states.get(path.slice('/api/states/'.length));
      return s ? json(s) : json({ message: 'Entity not found.' }, 404);
    }
    if (path === '/api/services/light/toggle' && req.method === 'POST') {
      const old = states.get('light.bench')!;
      const next = haState('light.bench', old.state === 'on' ? 'off' : 'on', 'Bench Light');
      states.set('light.bench', next);
      return json([next]);
    }
    return json({ message: 'not found' }, 404);
  });
}

async function callServiceCase(): Promise<Case> {
  const backend = await homeAssistant().start();
  const tool = createCallServiceTool();
  const config = tool.config!.parse({ url: backend.url, token: TOKEN });
  const input = { domain: 'light', service: 'toggle', target: { entity_id: 'light.bench' } };
  return { name: 'call_service (light.toggle, verified)', tool, config, input, backend };
}

async function haEntitiesCase(): Promise<Case> {
  const backend = await homeAssistant().start();
  const tool = createHaEntitiesTool();
  const config = tool.config!.parse({ url: backend.url, token: TOKEN });
  const input = { query: 'kitchen lamp 5', domain: 'light' };
  return { name: 'ha_entities (201 entities, states cached)', tool, config, input, backend };
}

// ---- calendar_read against answers recorded from Radicale --------------------------------

interface Radicale {
  url: string;
  child: ChildProcess;
  dir: string;
}

/** A Radicale on a free port with one user, or undefined when it is not installed. */
async function startRadicale(): Promise<Radicale | undefined> {
  if (spawnSync('sh', ['-c', 'command -v radicale']).status !== 0) return undefined;
  const dir = await mkdtemp(join(tmpdir(), 'caesar-bench-dav-'));
  await writeFile(join(dir, 'users'), 'bench:bench-pw\n');
  await writeFile(
    join(dir, 'config'),
    [
      '[server]',
      'hosts = 127.0.0.1:0',
      '[auth]',
      'type = htpasswd',
      `htpasswd_filename = ${join(dir, 'users')}`,
      'htpasswd_encryption = plain',
      '[rights]',
      'type = owner_only',
      '[storage]',
      `filesystem_folder = ${join(dir, 'collections')}`,
      '[logging]',
      'level = info',
      '',
    ].join('\n'),
  );
  const child = spawn('radicale', ['--config', join(dir, 'config')], { stdio: 'pipe' });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    const on = (c: Buffer) => {
      out += c.toString();
      const m = /Listening on '\[?127\.0\.0\.1\]?:(\d+)'/.exec(out);
      if (m && Number(m[1]) > 0) resolve(Number(m[1]));
    };
    child.stdout.on('data', on);
    child.stderr.on('data', on);
    child.once('exit', () => reject(new Error(`radicale exited: ${out}`)));
    setTimeout(() => reject(new Error('radicale did not start in 20 s')), 20_000).unref();
  });
  return { url: `http://127.0.0.1:${port}`, child, dir };
}

const AUTH = `Basic ${Buffer.from('bench:bench-pw').toString('base64')}`;

async function dav(url: string, method: string, body?: string, headers: object = {}) {
  const res = await request(url, {
    method: method as 'GET',
    headers: { authorization: AUTH, ...headers },
    body,
  });
  await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode}`);
}

function vevent(uid: string, start: string, extra: string[]): string {
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//CAESAR bench//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    `DTSTAMP:${start}`,
    `DTSTART:${start}`,
    'DURATION:PT30M',
    ...extra,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

/** A week of a busy calendar: 20 single events and 5 weekly or daily series. */
async function fillCalendar(base: string): Promise<void> {
  const cal = `${base}/bench/work/`;
  await dav(
    cal,
    'MKCALENDAR',
    '<?xml version="1.0"?><C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop><D:displayname>Work</D:displayname></D:prop></D:set></C:mkcalendar>',
    { 'content-type': 'application/xml' },
  );
  const put = (name: string, ics: string) =>
    dav(`${cal}${name}.ics`, 'PUT', ics, { 'content-type': 'text/calendar' });
  for (let i = 0; i < 20; i++) {
    const day = String(2 + (i % 6)).padStart(2, '0');
    await put(
      `single${i}`,
      vevent(`s${i}@bench`, `202603${day}T${String(8 + (i % 9)).padStart(2, '0')}0000Z`, [
        `SUMMARY:Meeting ${i}`,
      ]),
    );
  }
  await put(
    'daily',
    vevent('daily@bench', '20250101T080000Z', ['RRULE:FREQ=DAILY', 'SUMMARY:Standup']),
  );
  await put(
    'weekly',
    vevent('weekly@bench', '20240105T170000Z', [
      'RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR',
      'EXDATE:20260304T170000Z',
      'SUMMARY:Gym',
    ]),
  );
  await put(
    'monthly',
    vevent('monthly@bench', '20250102T120000Z', [
      'RRULE:FREQ=MONTHLY;BYMONTHDAY=2,5;COUNT=40',
      'SUMMARY:Bills',
    ]),
  );
  await put(
    'yearly',
    vevent('yearly@bench', '20000303T100000Z', ['RRULE:FREQ=YEARLY', 'SUMMARY:Anniversary']),
  );
  await put(
    'biweekly',
    vevent('biweekly@bench', '20250106T150000Z', [
      'RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH',
      'SUMMARY:Review',
    ]),
  );
}

/** Forwards to Radicale and records each answer by method, URL and body; then replays them. */
function recorder(target: string): InstantBackend {
  const recorded = new Map<string, Answer>();
  return new InstantBackend(async (req) => {
    const key = `${req.method} ${req.url} ${req.body}`;
    const hit = recorded.get(key);
    if (hit) return hit;
    const res = await request(`${target}${req.url}`, {
      method: req.method as 'GET',
      headers: req.headers,
      body: req.body === '' ? undefined : req.body,
    });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) {
      if (
        typeof v === 'string' &&
        !['content-length', 'connection', 'keep-alive', 'date'].includes(k)
      )
        headers[k] = v;
    }
    const answer = { status: res.statusCode, headers, body: await res.body.text() };
    recorded.set(key, answer);
    return answer;
  });
}

async function calendarCase(radicale: Radicale): Promise<Case> {
  await fillCalendar(radicale.url);
  const backend = await recorder(radicale.url).start();
  const tool = createCalendarReadTool();
  const config = tool.config!.parse({
    caldav_url: `${backend.url}/`,
    username: 'bench',
    password: 'bench-pw',
    timezone: 'Europe/Berlin',
  });
  const input = { start: '2026-03-02', end: '2026-03-09' };
  return { name: 'calendar_read (a week, 20 events, 5 series)', tool, config, input, backend };
}

export async function run(ctx: BenchContext): Promise<void> {
  ctx.section(
    `Tools: own cost per call against a loopback backend that answers at once (handler with input/output parsing vs the same requests replayed by bare undici; p50 of ${CALLS} alternating calls)`,
  );
  await measure(ctx, await webSearchCase());
  await measure(ctx, await callServiceCase());
  await measure(ctx, await haEntitiesCase());
  const radicale = await startRadicale();
  if (radicale === undefined) {
    console.log(
      '  calendar_read: skipped (radicale is not installed: apt-get install -y radicale)',
    );
    return;
  }
  try {
    await measure(ctx, await calendarCase(radicale));
  } finally {
    radicale.child.kill('SIGTERM');
    await new Promise((r) => radicale.child.once('exit', r));
    await rm(radicale.dir, { recursive: true, force: true });
  }
}
