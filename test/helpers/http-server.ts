import { readFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** One request as the fake server saw it. */
export interface SeenRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export type FakeHandler = (
  req: IncomingMessage & { body: string },
  res: ServerResponse,
) => void | Promise<void>;

export interface FakeServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` (or https). */
  readonly url: string;
  readonly port: number;
  /** Every request received, in order. */
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

const TLS_DIR = join(import.meta.dirname, '../fixtures/tls');

/**
 * A loopback HTTP(S) server for a third party's wire format (Home Assistant, SearXNG, Brave,
 * Tavily): the test writes the handler from the API's public reference. Bodies are read in
 * full before the handler runs; a handler that throws answers 500. `tls: true` serves the
 * self-signed test certificate in test/fixtures/tls.
 */
export async function startFakeServer(
  handler: FakeHandler,
  opts: { tls?: boolean } = {},
): Promise<FakeServer> {
  const requests: SeenRequest[] = [];
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      Promise.resolve(handler(Object.assign(req, { body }), res)).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(err));
      });
    });
  };
  const server: Server = opts.tls
    ? createHttpsServer(
        {
          key: readFileSync(join(TLS_DIR, 'key.pem')),
          cert: readFileSync(join(TLS_DIR, 'cert.pem')),
        },
        listener,
      )
    : createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    requests,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Answers `status` with a JSON body. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * Ports below the kernel's ephemeral range (32768-60999 on Linux), which is where every
 * `listen(0)` and every outgoing connection of the suite's processes takes its port: one
 * chosen there and released could be taken by another test file before its server binds it
 * (a CI run lost a nats-server to "address already in use" so). Each vitest worker has its
 * own slice, so no two files running at once are handed the same port.
 */
const PORT_SLICE = 500;
const PORT_SLICES = 24;
let portTurn = 0;

function ephemeralFloor(): number {
  try {
    const low = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0],
    );
    return Number.isInteger(low) && low > PORT_SLICE * PORT_SLICES + 1024 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

async function bindable(port: number): Promise<boolean> {
  const s = createHttpServer();
  const bound = await new Promise<boolean>((resolve) => {
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (bound) await new Promise<void>((resolve) => s.close(() => resolve()));
  return bound;
}

/**
 * A loopback port nothing listens on, for a server a test starts later or for a refused
 * connection: from this worker's own slice below the ephemeral range, checked free.
 */
export async function closedPort(): Promise<number> {
  const pool = Math.max(1, Number(process.env.VITEST_POOL_ID) || 1);
  const base =
    ephemeralFloor() - PORT_SLICE * PORT_SLICES + ((pool - 1) % PORT_SLICES) * PORT_SLICE;
  for (let tries = 0; tries < PORT_SLICE; tries++) {
    const port = base + (portTurn++ % PORT_SLICE);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free loopback port in ${base}-${base + PORT_SLICE - 1}`);
}
