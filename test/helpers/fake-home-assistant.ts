import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { sendJson, type SeenRequest } from './http-server.js';

/**
 * A loopback Home Assistant, written from its public REST and WebSocket API references
 * (developers.home-assistant.io/docs/api/rest, /docs/api/websocket), not from the CAESAR
 * workers: bearer auth, the state machine, the service catalogue, service calls that return
 * the states changed in the call's context, `?return_response` with its two 400 answers, and
 * the registries over `/api/websocket`. The test controls the entities, areas, devices and
 * what each service does, and reads every request it received.
 */

/** The token the fake accepts. */
export const FAKE_HA_TOKEN = 'fake-ha-token-9f8e7d6c5b4a';

/** How a device reports a state a service set. */
export type DeviceBehaviour = 'immediate' | 'frozen' | { delayMs: number };

export interface FakeEntityInit {
  entity_id: string;
  state: string;
  attributes?: Record<string, unknown>;
  /** Entity registry: area, device, user-set name and aliases. */
  area_id?: string | null;
  device_id?: string | null;
  name?: string | null;
  aliases?: string[];
  /** @default 'immediate': the new state is written within the service call */
  device?: DeviceBehaviour;
}

export interface FakeArea {
  area_id: string;
  name: string;
  aliases?: string[];
}

export interface FakeDevice {
  id: string;
  name: string;
  area_id?: string | null;
}

export interface FakeState {
  entity_id: string;
  state: string;
  attributes: Record<string, unknown>;
  last_changed: string;
  last_updated: string;
  context: { id: string; parent_id: null; user_id: string | null };
}

/** One service call as the service's `run` sees it. */
export interface FakeServiceCall {
  readonly domain: string;
  readonly service: string;
  readonly data: Record<string, unknown>;
  /** Entities the call targets (entity_id, device_id and area_id resolved, `all` expanded). */
  readonly entityIds: string[];
  readonly returnResponse: boolean;
  readonly contextId: string;
}

export interface FakeService {
  /** @default 'none' */
  response?: 'none' | 'optional' | 'only';
  fields?: Record<string, { description?: string; example?: unknown; required?: boolean }>;
  /** Does the service take a target? @default true */
  target?: boolean;
  /** A reason to refuse the data (Home Assistant answers a bare 400, as for vol.Invalid). */
  validate?: (data: Record<string, unknown>) => string | undefined;
  /** What the service does; its value is the `service_response`. @default nothing */
  run?: (call: FakeServiceCall, ha: FakeHomeAssistant) => unknown;
}

/** What `/api/websocket` does: serve the registries, refuse the upgrade, or hang. */
export type RegistryMode = 'ok' | 'refuse' | 'hang' | 'no_get_entries';

export interface FakeHomeAssistantOptions {
  entities?: FakeEntityInit[];
  areas?: FakeArea[];
  devices?: FakeDevice[];
  /** Added to (or replacing) the default services, by `domain.service`. */
  services?: Record<string, FakeService>;
  tls?: boolean;
  registry?: RegistryMode;
}

/** A service run that sets every targeted entity to `state` (respecting its device). */
export function setsState(state: string | ((before: string) => string)): FakeService['run'] {
  return (call, ha) => {
    for (const id of call.entityIds) {
      const before = ha.states.get(id)?.state ?? 'unknown';
      ha.deviceReports(id, typeof state === 'string' ? state : state(before), call.contextId);
    }
  };
}

const TOGGLE = (s: string) => (s === 'on' ? 'off' : 'on');

function onOffServices(domain: string): Record<string, FakeService> {
  return {
    [`${domain}.turn_on`]: {
      fields: { brightness_pct: { description: 'Brightness, 0-100' } },
      run: setsState('on'),
    },
    [`${domain}.turn_off`]: { run: setsState('off') },
    [`${domain}.toggle`]: { run: setsState(TOGGLE) },
  };
}

/** Services every fake starts with. */
export function defaultServices(): Record<string, FakeService> {
  return {
    ...onOffServices('light'),
    ...onOffServices('switch'),
    'lock.lock': { run: setsState('locked') },
    'lock.unlock': { run: setsState('unlocked') },
    'homeassistant.update_entity': {},
    'notify.send_message': { target: false, fields: { message: { required: true } } },
    'weather.get_forecasts': {
      response: 'only',
      fields: { type: { required: true } },
      run: (call) =>
        Object.fromEntries(call.entityIds.map((id) => [id, { forecast: [{ temperature: 21 }] }])),
    },
    'conversation.process': {
      response: 'optional',
      target: false,
      run: (call) => ({
        response: { speech: { plain: { speech: `heard ${String(call.data.text)}` } } },
      }),
    },
  };
}

const TLS_DIR = join(import.meta.dirname, '../fixtures/tls');
const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export class FakeHomeAssistant implements AsyncDisposable {
  readonly states = new Map<string, FakeState>();
  readonly services = new Map<string, FakeService>();
  readonly areas: FakeArea[];
  readonly devices: FakeDevice[];
  /** Every HTTP request received, in order (WebSocket upgrades included). */
  readonly requests: SeenRequest[] = [];
  /** Every WebSocket message received from clients, parsed. */
  readonly wsMessages: Record<string, unknown>[] = [];
  /** Service calls that ran, in order. */
  readonly calls: FakeServiceCall[] = [];
  registry: RegistryMode;
  /**
   * Lets a test answer a request itself (a 500, a hang): return true when it did. Runs after
   * authentication, before the normal routes.
   */
  intercept: ((req: IncomingMessage & { body: string }, res: ServerResponse) => boolean) | null =
    null;
  url = '';
  port = 0;
  readonly #registryInfo = new Map<string, FakeEntityInit>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #sockets = new Set<Socket>();
  readonly #server: Server;

  constructor(options: FakeHomeAssistantOptions) {
    this.areas = options.areas ?? [];
    this.devices = options.devices ?? [];
    this.registry = options.registry ?? 'ok';
    for (const [k, v] of Object.entries({ ...defaultServices(), ...options.services })) {
      this.services.set(k, v);
    }
    for (const e of options.entities ?? []) this.addEntity(e);
    const listener = (req: IncomingMessage, res: ServerResponse) => this.#onRequest(req, res);
    this.#server = options.tls
      ? createHttpsServer(
          {
            key: readFileSync(join(TLS_DIR, 'key.pem')),
            cert: readFileSync(join(TLS_DIR, 'cert.pem')),
          },
          listener,
        )
      : createHttpServer(listener);
    this.#server.on('upgrade', (req: IncomingMessage, socket: Socket) =>
      this.#onUpgrade(req, socket),
    );
    this.#server.on('connection', (s: Socket) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
  }

  async listen(tls: boolean): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as AddressInfo).port;
    this.url = `${tls ? 'https' : 'http'}://127.0.0.1:${this.port}`;
    return this;
  }

  addEntity(e: FakeEntityInit): void {
    this.#registryInfo.set(e.entity_id, e);
    const now = new Date().toISOString();
    this.states.set(e.entity_id, {
      entity_id: e.entity_id,
      state: e.state,
      attributes: { ...e.attributes },
      last_changed: now,
      last_updated: now,
      context: { id: randomUUID(), parent_id: null, user_id: null },
    });
  }

  /**
   * Writes a state the way Home Assistant's state machine does: nothing happens when neither
   * the state nor the attributes differ; `last_changed` moves only when the state does.
   * Returns whether a state_changed event fired.
   */
  setState(id: string, state: string, attributes?: Record<string, unknown>, contextId?: string) {
    const old = this.states.get(id);
    const attrs = attributes ?? old?.attributes ?? {};
    if (old && old.state === state && JSON.stringify(old.attributes) === JSON.stringify(attrs)) {
      return false;
    }
    const now = new Date().toISOString();
    this.states.set(id, {
      entity_id: id,
      state,
      attributes: attrs,
      last_changed: old && old.state === state ? old.last_changed : now,
      last_updated: now,
      context: { id: contextId ?? randomUUID(), parent_id: null, user_id: null },
    });
    return true;
  }

  /** A device reports `state` for `id` as its behaviour says: at once, later, or never. */
  deviceReports(id: string, state: string, contextId: string): void {
    const behaviour = this.#registryInfo.get(id)?.device ?? 'immediate';
    if (behaviour === 'frozen') return;
    if (behaviour === 'immediate') {
      this.setState(id, state, undefined, contextId);
      return;
    }
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.setState(id, state); // a later report has its own context
    }, behaviour.delayMs);
    this.#timers.add(timer);
  }

  /** Requests whose method and path (without query) match. */
  seen(method: string, path: string | RegExp): SeenRequest[] {
    return this.requests.filter((r) => {
      const p = r.url.split('?')[0] ?? '';
      return r.method === method && (typeof path === 'string' ? p === path : path.test(p));
    });
  }

  async close(): Promise<void> {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => {
      this.#server.closeAllConnections();
      this.#server.close(() => resolve());
    });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  // --- REST ---------------------------------------------------------------------------

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      this.requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
      });
      try {
        this.#route(Object.assign(req, { body }), res);
      } catch (err) {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`500 Internal Server Error\n\n${String(err)}`);
      }
    });
  }

  #route(req: IncomingMessage & { body: string }, res: ServerResponse): void {
    if (req.headers.authorization !== `Bearer ${FAKE_HA_TOKEN}`) {
      return plain(res, 401, '401: Unauthorized');
    }
    if (this.intercept?.(req, res)) return;
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    if (method === 'GET' && path === '/api/')
      return sendJson(res, 200, { message: 'API running.' });
    if (method === 'GET' && path === '/api/states')
      return sendJson(res, 200, [...this.states.values()]);
    const stateMatch = /^\/api\/states\/([^/]+)$/.exec(path);
    if (stateMatch) return this.#entityState(req, res, decodeURIComponent(stateMatch[1] ?? ''));
    if (method === 'GET' && path === '/api/services') return sendJson(res, 200, this.#catalogue());
    const call = /^\/api\/services\/([^/]+)\/([^/]+)$/.exec(path);
    if (method === 'POST' && call) {
      // A service whose run throws answers 500, as Home Assistant does for HomeAssistantError.
      this.#callService(req, res, call[1] ?? '', call[2] ?? '', url.searchParams).catch(
        (err: unknown) => plain(res, 500, `500 Internal Server Error\n\n${String(err)}`),
      );
      return;
    }
    plain(res, 404, '404: Not Found');
  }

  #entityState(req: IncomingMessage & { body: string }, res: ServerResponse, id: string): void {
    if (req.method === 'GET') {
      const state = this.states.get(id);
      return state
        ? sendJson(res, 200, state)
        : sendJson(res, 404, { message: 'Entity not found.' });
    }
    if (req.method === 'POST') {
      // Sets Home Assistant's record only, never the device: the workers must not use it.
      const data = JSON.parse(req.body || '{}') as {
        state?: string;
        attributes?: Record<string, unknown>;
      };
      if (data.state === undefined) return sendJson(res, 400, { message: 'No state specified.' });
      const existed = this.states.has(id);
      this.setState(id, data.state, data.attributes ?? {});
      return sendJson(res, existed ? 200 : 201, this.states.get(id));
    }
    plain(res, 405, '405: Method Not Allowed');
  }

  #catalogue(): { domain: string; services: Record<string, unknown> }[] {
    const byDomain = new Map<string, Record<string, unknown>>();
    for (const [key, svc] of this.services) {
      const [domain = '', name = ''] = key.split('.');
      const entry: Record<string, unknown> = {
        name: name.replace(/_/g, ' '),
        description: `${name} (fake)`,
        fields: svc.fields ?? {},
      };
      if (svc.target !== false) entry.target = { entity: [{ domain: [domain] }] };
      if (svc.response && svc.response !== 'none') {
        entry.response = { optional: svc.response === 'optional' };
      }
      byDomain.set(domain, { ...byDomain.get(domain), [name]: entry });
    }
    return [...byDomain].map(([domain, services]) => ({ domain, services }));
  }

  async #callService(
    req: IncomingMessage & { body: string },
    res: ServerResponse,
    domain: string,
    service: string,
    query: URLSearchParams,
  ): Promise<void> {
    let data: Record<string, unknown>;
    try {
      data = req.body ? (JSON.parse(req.body) as Record<string, unknown>) : {};
    } catch {
      return sendJson(res, 400, { message: 'Data should be valid JSON.' });
    }
    const svc = this.services.get(`${domain}.${service}`);
    if (!svc) return plain(res, 400, '400: Bad Request'); // ServiceNotFound -> HTTPBadRequest
    const wantsResponse = query.has('return_response');
    const mode = svc.response ?? 'none';
    if (wantsResponse && mode === 'none') {
      return sendJson(res, 400, {
        message: 'Service does not support responses. Remove return_response from request.',
      });
    }
    if (!wantsResponse && mode === 'only') {
      return sendJson(res, 400, {
        message:
          'Service call requires responses but caller did not ask for responses. Add ?return_response to query parameters.',
      });
    }
    if (svc.validate?.(data) !== undefined) return plain(res, 400, '400: Bad Request');
    const contextId = randomUUID();
    const call: FakeServiceCall = {
      domain,
      service,
      data,
      entityIds: this.#targets(domain, data),
      returnResponse: wantsResponse,
      contextId,
    };
    this.calls.push(call);
    const response: unknown = await svc.run?.(call, this);
    // Like Home Assistant: the states written in this call's context, not later reports.
    const changed = [...this.states.values()].filter((s) => s.context.id === contextId);
    sendJson(
      res,
      200,
      wantsResponse ? { changed_states: changed, service_response: response ?? null } : changed,
    );
  }

  /** The entities a call targets, the way Home Assistant resolves entity, device and area ids. */
  #targets(domain: string, data: Record<string, unknown>): string[] {
    const ids = (v: unknown): string[] =>
      (Array.isArray(v) ? v : v === undefined ? [] : [v]).flatMap((x) =>
        String(x)
          .split(',')
          .map((s) => s.trim().toLowerCase())
          .filter(Boolean),
      );
    const out = new Set<string>();
    const inDomain = [...this.states.keys()].filter((id) => id.startsWith(`${domain}.`));
    for (const id of ids(data.entity_id)) {
      if (id === 'all') inDomain.forEach((e) => out.add(e));
      else if (this.states.has(id)) out.add(id);
    }
    const devices = new Set(ids(data.device_id));
    const areas = new Set(ids(data.area_id));
    for (const id of inDomain) {
      const info = this.#registryInfo.get(id);
      const area = info?.area_id ?? this.devices.find((d) => d.id === info?.device_id)?.area_id;
      if (info?.device_id && devices.has(info.device_id)) out.add(id);
      if (area && areas.has(area)) out.add(id);
    }
    return [...out];
  }

  // --- WebSocket (registries) -----------------------------------------------------------

  #onUpgrade(req: IncomingMessage, socket: Socket): void {
    this.requests.push({ method: 'GET', url: req.url ?? '', headers: req.headers, body: '' });
    const key = req.headers['sec-websocket-key'];
    if (req.url !== '/api/websocket' || typeof key !== 'string' || this.registry === 'refuse') {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    const accept = createHash('sha1')
      .update(key + WS_GUID)
      .digest('base64');
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    if (this.registry === 'hang') return; // never says auth_required
    const send = (msg: unknown) => socket.write(wsFrame(0x1, Buffer.from(JSON.stringify(msg))));
    send({ type: 'auth_required', ha_version: '2025.1.0' });
    let authed = false;
    readFrames(socket, (opcode, payload) => {
      if (opcode === 0x8) return void socket.end(wsFrame(0x8, Buffer.from([0x03, 0xe8])));
      if (opcode === 0x9) return void socket.write(wsFrame(0xa, payload));
      if (opcode !== 0x1) return;
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(payload.toString('utf8')) as Record<string, unknown>;
      } catch {
        return void socket.end(wsFrame(0x8, Buffer.from([0x03, 0xf0])));
      }
      this.wsMessages.push(msg);
      if (!authed) {
        if (msg.type === 'auth' && msg.access_token === FAKE_HA_TOKEN) {
          authed = true;
          return send({ type: 'auth_ok', ha_version: '2025.1.0' });
        }
        send({ type: 'auth_invalid', message: 'Invalid access token or password' });
        return void socket.end(wsFrame(0x8, Buffer.from([0x03, 0xe8])));
      }
      send(this.#command(msg));
    });
  }

  #command(msg: Record<string, unknown>): Record<string, unknown> {
    const ok = (result: unknown) => ({ id: msg.id, type: 'result', success: true, result });
    const entries = [...this.#registryInfo.values()].filter((e) => this.states.has(e.entity_id));
    switch (msg.type) {
      case 'config/entity_registry/list':
        // The list carries no aliases (they are in the extended entries only).
        return ok(
          entries.map((e) => ({
            entity_id: e.entity_id,
            area_id: e.area_id ?? null,
            device_id: e.device_id ?? null,
            name: e.name ?? null,
            original_name: null,
            hidden_by: null,
            disabled_by: null,
            platform: 'fake',
          })),
        );
      case 'config/entity_registry/get_entries':
        if (this.registry === 'no_get_entries') break;
        return ok(
          Object.fromEntries(
            (msg.entity_ids as string[]).map((id) => {
              const e = this.#registryInfo.get(id);
              return [
                id,
                e ? { entity_id: id, aliases: e.aliases ?? [], area_id: e.area_id ?? null } : null,
              ];
            }),
          ),
        );
      case 'config/area_registry/list':
        return ok(this.areas.map((a) => ({ aliases: [], floor_id: null, ...a })));
      case 'config/device_registry/list':
        return ok(this.devices.map((d) => ({ area_id: null, name_by_user: null, ...d })));
    }
    return {
      id: msg.id,
      type: 'result',
      success: false,
      error: { code: 'unknown_command', message: 'Unknown command.' },
    };
  }
}

/** Starts a fake Home Assistant on a free loopback port. */
export async function startFakeHomeAssistant(
  options: FakeHomeAssistantOptions = {},
): Promise<FakeHomeAssistant> {
  return new FakeHomeAssistant(options).listen(options.tls ?? false);
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}

/** One unmasked server frame (RFC 6455 section 5.2). */
function wsFrame(opcode: number, payload: Buffer): Buffer {
  const n = payload.length;
  const head =
    n < 126
      ? Buffer.from([0x80 | opcode, n])
      : n < 65536
        ? Buffer.from([0x80 | opcode, 126, n >> 8, n & 0xff])
        : Buffer.concat([Buffer.from([0x80 | opcode, 127]), u64(n)]);
  return Buffer.concat([head, payload]);
}

function u64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

/** Reads masked client frames, reassembling fragmented messages. */
function readFrames(socket: Socket, onMessage: (opcode: number, payload: Buffer) => void): void {
  let buf = Buffer.alloc(0);
  let fragments: Buffer[] = [];
  let fragOpcode = 0;
  socket.on('data', (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      if (buf.length < 2) return;
      const fin = (buf[0]! & 0x80) !== 0;
      const opcode = buf[0]! & 0x0f;
      let len = buf[1]! & 0x7f;
      let at = 2;
      if (len === 126) {
        if (buf.length < 4) return;
        len = buf.readUInt16BE(2);
        at = 4;
      } else if (len === 127) {
        if (buf.length < 10) return;
        len = Number(buf.readBigUInt64BE(2));
        at = 10;
      }
      const masked = (buf[1]! & 0x80) !== 0;
      const end = at + (masked ? 4 : 0) + len;
      if (buf.length < end) return;
      const mask = masked ? buf.subarray(at, at + 4) : null;
      const payload = Buffer.from(buf.subarray(end - len, end));
      if (mask)
        for (let i = 0; i < payload.length; i++)
          payload[i] = (payload[i] ?? 0) ^ (mask[i % 4] ?? 0);
      buf = buf.subarray(end);
      if (opcode >= 0x8) onMessage(opcode, payload);
      else if (!fin) {
        if (opcode !== 0) fragOpcode = opcode;
        fragments.push(payload);
      } else if (opcode === 0 && fragments.length > 0) {
        onMessage(fragOpcode, Buffer.concat([...fragments, payload]));
        fragments = [];
      } else onMessage(opcode, payload);
    }
  });
}
