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
