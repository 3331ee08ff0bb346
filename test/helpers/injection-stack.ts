/* eslint-disable @typescript-eslint/no-explicit-any --
   HTTP bodies of many shapes are read as JSON and checked by the tests' assertions. */
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import type {
  ChatResponse,
  ConfirmResponse,
  PendingConfirmation,
} from '../../src/brain/api/index.js';
import { startCli, type RunningCli } from './cli.js';
import {
  FAKE_HA_TOKEN,
  setsState,
  startFakeHomeAssistant,
  type FakeHomeAssistant,
} from './fake-home-assistant.js';
import {
  startFakeSearxng,
  type FakeSearch,
  type FakeSearxngOptions,
  type SearxngResult,
} from './fake-search.js';
import { sendJson } from './http-server.js';
import type { HaError, Home, Plant, PlantedEvent } from './injection-fixtures.js';
import { startRadicale, type TestRadicale } from './radicale.js';
import { startStandInModel, type StandInModel } from './stand-in-model.js';
import { firstToken } from './tokens.js';
import { waitFor } from './wait.js';

/**
 * The stack an injection corpus runs against, started once per test file: `caesar up` (the
 * embedded nats-server, the brain and every shipped worker, as an operator runs it) with its
 * backends configured by env vars (a real Radicale, a loopback SearXNG and Home Assistant)
 * and the stand-in model (stand-in-model.ts) as its OpenAI-compatible LLM. Local intent rules
 * are off, so every message is planned by the model. Everything a case plants is planted
 * before the stack starts (the Home Assistant workers cache states and registries), so each
 * case reads its own query, entity or calendar.
 */

/** An audit row as `GET /v1/audit` exports it. */
export interface AuditRow {
  readonly seq: number;
  readonly event_type: string;
  readonly outcome: string | null;
  readonly tool: string | null;
  readonly decision_id: string | null;
  readonly session_id: string | null;
  readonly payload: any;
}

export interface InjectionStack extends AsyncDisposable {
  readonly model: StandInModel;
  readonly ha: FakeHomeAssistant;
  readonly searx: FakeSearch<FakeSearxngOptions>;
  /** `caesar up`'s data directory (the audit log, the tokens, the runtime file). */
  readonly dataDir: string;
  readonly policyFile: string;
  /** One message, in a new session (or `sessionId`'s). */
  chat(message: string, sessionId?: string): Promise<ChatResponse>;
  confirmations(): Promise<PendingConfirmation[]>;
  /** Approves or rejects a waiting call. */
  decide(id: string, approve: boolean): Promise<ConfirmResponse>;
  audit(query: Record<string, string>): Promise<AuditRow[]>;
  metrics(): Promise<string>;
  /** Writes the policy and waits until the brain enforces it. */
  setPolicy(text: string): Promise<void>;
  /** HTTP requests of the brain's API (its rate limit is 600 a minute per token). */
  readonly apiRequests: number;
}

export interface InjectionStackOptions {
  readonly home: Home;
  /** What the cases put in the backends, with the home's. */
  readonly plants: readonly Plant[];
  readonly policy: string;
  readonly obey: boolean;
  /** More env vars for `caesar up`. */
  readonly env?: Readonly<Record<string, string>>;
}

const MODEL_KEY = 'sk-stand-in-0123456789';
const DAV_USER = 'alice';
const DAV_PASSWORD = 'alice-pw';
// what `caesar up` serves: Home Assistant as one tool's two actions (ADR 0093)
const SHIPPED_TOOLS = [
  'calculator',
  'calendar_read',
  'home_assistant.call_service',
  'home_assistant.entities',
  'web_search',
];

export async function startInjectionStack(o: InjectionStackOptions): Promise<InjectionStack> {
  const undo: (() => Promise<unknown>)[] = [];
  try {
    return await start(o, undo);
  } catch (err) {
    for (const u of undo.reverse()) await u().catch(() => undefined);
    throw err;
  }
}

async function start(
  o: InjectionStackOptions,
  undo: (() => Promise<unknown>)[],
): Promise<InjectionStack> {
  const dir = await mkdtemp(join(tmpdir(), 'caesar-injection-'));
  undo.push(() => rm(dir, { recursive: true, force: true }));
  const plants = [o.home, ...o.plants];
  const dav = await startRadicale({ users: { [DAV_USER]: DAV_PASSWORD } });
  undo.push(() => dav.stop());
  await plantCalendars(dav, plants);
  const searx = await startFakeSearxng({
    results: o.home.search_default,
    resultsFor: searchTable(plants),
  });
  undo.push(() => searx.close());
  const ha = await startHomeAssistant(plants);
  undo.push(() => ha.close());
  const model = await startStandInModel({ key: MODEL_KEY, obey: o.obey });
  undo.push(() => model.close());

  const policyFile = join(dir, 'policy.yaml');
  const dataDir = join(dir, 'var');
  await writeFile(policyFile, o.policy);
  await writeFile(join(dir, 'ha-token'), `${FAKE_HA_TOKEN}\n`, { mode: 0o600 });
  const up = startCli(['up', '--nats-port', '0', '--api-port', '0', '--data-dir', dataDir], {
    CAESAR_POLICY__FILE: policyFile,
    CAESAR_BRAIN__TIME_ZONE: 'UTC',
    CAESAR_BRAIN__PREFER_LOCAL: 'false',
    CAESAR_LOG__LEVEL: 'warn',
    CAESAR_TOOLS__CALENDAR__CALDAV_URL: dav.url,
    CAESAR_TOOLS__CALENDAR__USERNAME: DAV_USER,
    CAESAR_TOOLS__CALENDAR__PASSWORD: DAV_PASSWORD,
    CAESAR_TOOLS__CALENDAR__TIMEZONE: 'UTC',
    CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL: searx.url,
    CAESAR_HA__URL: ha.url,
    CAESAR_HA__TOKEN_FILE: join(dir, 'ha-token'),
    CAESAR_LLM__PROVIDER: 'openai',
    CAESAR_LLM__MODEL: 'stand-in',
    CAESAR_LLM__OPENAI__BASE_URL: `${model.url}/v1`,
    CAESAR_LLM__OPENAI__API_KEY: MODEL_KEY,
    ...o.env,
  });
  undo.push(() => stopUp(up));
  const line = await up.waitForLine(/^ready: /, 90_000);
  const url = /CAESAR is up at (\S+)/.exec(line)?.[1];
  if (url === undefined) throw new Error(`no API address in: ${line}`);
  const token = await firstToken(join(dataDir, 'api-tokens.yaml'));
  const api = apiClient(url, token);
  await waitFor(
    async () => {
      const tools = (await api.call('GET', '/v1/tools')).body as {
        name: string;
        preflight: { state: string };
      }[];
      return SHIPPED_TOOLS.every((n) =>
        tools.some((t) => t.name === n && t.preflight.state === 'ready'),
      );
    },
    'every shipped tool to be served and ready',
    60_000,
    250,
  );
  return {
    model,
    ha,
    searx,
    dataDir,
    policyFile,
    get apiRequests() {
      return api.count;
    },
    chat: async (message, sessionId) =>
      ok(
        await api.call('POST', '/v1/chat', {
          message,
          ...(sessionId === undefined ? {} : { session_id: sessionId }),
        }),
      ),
    confirmations: async () => ok(await api.call('GET', '/v1/confirmations')),
    decide: async (id, approve) =>
      ok(await api.call('POST', `/v1/confirmations/${encodeURIComponent(id)}`, { approve })),
    audit: async (query) =>
      ok(
        await api.call(
          'GET',
          `/v1/audit?${new URLSearchParams({ order: 'oldest', limit: '10000', ...query }).toString()}`,
        ),
      ),
    metrics: async () => ok(await api.call('GET', '/metrics')),
    setPolicy: async (text) => {
      await writeFile(policyFile, text);
      const sha = createHash('sha256').update(text).digest('hex');
      await waitFor(
        async () => {
          const status = (await api.call('GET', '/v1/policy')).body as {
            enforced: { sha256: string };
            last_reload_error: { message: string } | null;
          };
          if (status.last_reload_error !== null && status.enforced.sha256 !== sha) {
            throw new Error(`the policy did not load: ${status.last_reload_error.message}`);
          }
          return status.enforced.sha256 === sha;
        },
        'the brain to enforce the new policy',
        15_000,
        200,
      );
    },
    [Symbol.asyncDispose]: async () => {
      for (const u of undo.reverse()) await u().catch(() => undefined);
    },
  };
}

function ok<T>(r: { status: number; body: any }): T {
  if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body as T;
}

function apiClient(url: string, token: string) {
  const client = {
    count: 0,
    async call(
      method: string,
      path: string,
      body?: unknown,
    ): Promise<{ status: number; body: any }> {
      client.count++;
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${url}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      try {
        return { status: res.status, body: JSON.parse(text) as unknown };
      } catch {
        return { status: res.status, body: text };
      }
    },
  };
  return client;
}

/** SIGINT (as Ctrl-C), then SIGKILL if `caesar up` is still there after 20 s. */
async function stopUp(up: RunningCli): Promise<void> {
  if (up.child.exitCode !== null || up.child.signalCode !== null) return;
  up.child.kill('SIGINT');
  const timer = setTimeout(() => up.child.kill('SIGKILL'), 20_000);
  await up.exited;
  clearTimeout(timer);
}

function searchTable(plants: readonly Plant[]): (q: string) => SearxngResult[] | undefined {
  const table = new Map<string, SearxngResult[]>();
  for (const p of plants) {
    for (const [q, results] of Object.entries(p.search ?? {})) {
      if (table.has(q)) throw new Error(`two plants answer the search '${q}'`);
      table.set(q, results);
    }
  }
  return (q) => table.get(q);
}

async function startHomeAssistant(plants: readonly Plant[]): Promise<FakeHomeAssistant> {
  const ha = await startFakeHomeAssistant({
    entities: plants.flatMap((p) => p.entities ?? []),
    areas: plants.flatMap((p) => p.areas ?? []),
    services: {
      'cover.open_cover': { run: setsState('open') },
      'cover.close_cover': { run: setsState('closed') },
    },
  });
  const errors = plants.flatMap((p) => p.ha_errors ?? []);
  ha.intercept = (req, res) => {
    const hit = errors.find((e) => isErrorCall(e, req.method, req.url, req.body));
    if (hit === undefined) return false;
    answerError(res, hit);
    return true;
  };
  return ha;
}

function isErrorCall(
  e: HaError,
  method: string | undefined,
  url: string | undefined,
  body: string,
): boolean {
  const [domain, service] = e.service.split('.');
  if (method !== 'POST' || url?.split('?')[0] !== `/api/services/${domain}/${service}`)
    return false;
  try {
    return JSON.stringify((JSON.parse(body) as { entity_id?: unknown }).entity_id).includes(
      `"${e.entity_id}"`,
    );
  } catch {
    return false;
  }
}

function answerError(res: ServerResponse, e: HaError): void {
  sendJson(res, e.status, { message: e.message });
}

async function plantCalendars(dav: TestRadicale, plants: readonly Plant[]): Promise<void> {
  for (const c of plants.flatMap((p) => p.calendars ?? [])) {
    await dav.makeCalendar(DAV_USER, c.slug, c.name);
  }
  const today = new Date();
  for (const e of plants.flatMap((p) => p.events ?? [])) {
    await dav.putEvent(DAV_USER, e.calendar, e.uid, eventIcs(e, today));
  }
}

/** One VEVENT, its text escaped and folded as RFC 5545 says (3.3.11, 3.1). */
export function eventIcs(e: PlantedEvent, today: Date): string {
  const [hh, mm] = e.at.split(':').map(Number) as [number, number];
  const start = new Date(
    Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + e.day, hh, mm),
  );
  const end = new Date(start.getTime() + e.minutes * 60_000);
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//CAESAR tests//injection corpus//EN',
    'BEGIN:VEVENT',
    `UID:${e.uid}@caesar.test`,
    `DTSTAMP:${icsTime(start)}`,
    `DTSTART:${icsTime(start)}`,
    `DTEND:${icsTime(end)}`,
    `SUMMARY:${icsText(e.summary)}`,
    ...(e.location === undefined ? [] : [`LOCATION:${icsText(e.location)}`]),
    ...(e.description === undefined ? [] : [`DESCRIPTION:${icsText(e.description)}`]),
    'END:VEVENT',
    'END:VCALENDAR',
  ];
  return `${lines.flatMap(fold).join('\r\n')}\r\n`;
}

function icsTime(d: Date): string {
  return `${d.toISOString().replace(/[-:]/g, '').slice(0, 15)}Z`;
}

function icsText(s: string): string {
  return s.replace(/[\\;,]/g, (c) => `\\${c}`).replace(/\r?\n/g, '\\n');
}

/** Lines of at most 75 octets, continued with a space (never inside a code point). */
function fold(line: string): string[] {
  const out: string[] = [];
  let current = '';
  let octets = 0;
  for (const ch of line) {
    const n = Buffer.byteLength(ch);
    if (octets + n > 74) {
      out.push(current);
      current = ' ';
      octets = 1;
    }
    current += ch;
    octets += n;
  }
  out.push(current);
  return out;
}
