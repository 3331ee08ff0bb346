import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';

/**
 * HTTP clients that behave badly on purpose, over real loopback sockets: one that sends its
 * request and never reads a byte of the answer, and one that can leave at any moment.
 */

export interface RequestSpec {
  readonly method?: string;
  readonly path: string;
  readonly token: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A JSON body; sets `content-type: application/json`. */
  readonly body?: unknown;
}

function headersOf(spec: RequestSpec): Record<string, string> {
  return {
    authorization: `Bearer ${spec.token}`,
    ...(spec.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...spec.headers,
  };
}

/**
 * Sends one request on a raw socket that is paused before it connects and never consumed: the
 * answer piles up in the kernel's buffers and nothing of it is ever read. The socket stays
 * open until the server closes it or the test destroys it.
 */
export function neverReadingClient(baseUrl: string, spec: RequestSpec): Socket {
  const url = new URL(baseUrl);
  const socket = connect(Number(url.port), url.hostname);
  socket.pause();
  socket.on('error', () => undefined); // the server may reset it; that is the point
  const body = spec.body === undefined ? '' : JSON.stringify(spec.body);
  const head = Object.entries({
    host: url.host,
    ...headersOf(spec),
    ...(body === '' ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
  }).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.write(`${spec.method ?? 'GET'} ${spec.path} HTTP/1.1\r\n${head.join('')}\r\n${body}`);
  return socket;
}

export interface LeavingClient {
  /** Resolves at the response head (never, if the client leaves first). */
  readonly response: Promise<IncomingMessage>;
  /** Destroys the socket, as a closed tab or a killed script would. */
  leave(): void;
}

/** Sends one request with node:http; the caller decides when (or whether) to leave. */
export function leavingClient(baseUrl: string, spec: RequestSpec): LeavingClient {
  const url = new URL(baseUrl);
  const req: ClientRequest = request({
    host: url.hostname,
    port: url.port,
    path: spec.path,
    method: spec.method ?? 'GET',
    headers: headersOf(spec),
    agent: false,
  });
  req.on('error', () => undefined); // leaving destroys the request: not a failure here
  req.end(spec.body === undefined ? undefined : JSON.stringify(spec.body));
  const response = new Promise<IncomingMessage>((resolve) => req.once('response', resolve));
  return { response, leave: () => req.destroy() };
}

/** Reads a whole response body as text. */
export async function bodyText(res: IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let text = '';
  for await (const chunk of res) text += chunk as string;
  return text;
}
