import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { errorEntry, errorMessage } from '../../errors/index.js';
import type { HttpErrorCode } from './errors.js';
import { REQUEST_ID_HEADER } from './request-id.js';

/**
 * Node's http server watches request timeouts only on a timer, every
 * `connectionsCheckingInterval` (30 s by default): a 30 s bound then ends between 30 and 60 s.
 * Checking every second keeps it at 30-31 s for a cost of one walk over open connections.
 */
export const CONNECTIONS_CHECK_INTERVAL_MS = 1000;

/** How a timeout reads in a message: `30 s`, `1.5 s`. */
function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** The answer for a client error Node raised on the socket before any route ran. */
function answerFor(
  err: NodeJS.ErrnoException,
  requestTimeoutMs: number,
  maxHeaderBytes: number,
): [HttpErrorCode, string] {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    const within = seconds(requestTimeoutMs);
    return ['request_timeout', errorMessage('request_timeout', { within })];
  }
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return ['headers_too_large', errorMessage('headers_too_large', { limit: maxHeaderBytes })];
  }
  return ['invalid_request', errorMessage('invalid_request', { issues: 'malformed HTTP request' })];
}

/**
 * fastify `clientErrorHandler`: what Node detects on the socket itself (a request too slow,
 * headers too large, bytes that are not HTTP) is answered in the API's one error shape
 * (docs/api.md, "Errors") instead of fastify's own body, then the connection is closed.
 * Nothing is written once a response has started on the socket.
 */
export function clientErrorHandler(requestTimeoutMs: number, maxHeaderBytes: number) {
  return (err: NodeJS.ErrnoException, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const pending = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && pending?.headersSent !== true) {
      const [code, message] = answerFor(err, requestTimeoutMs, maxHeaderBytes);
      const status = errorEntry(code).status;
      const requestId = randomUUID();
      const body = JSON.stringify({ error: { code, message }, request_id: requestId });
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
          'Content-Type: application/json; charset=utf-8\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          'Cache-Control: no-store\r\n' +
          `${REQUEST_ID_HEADER}: ${requestId}\r\n` +
          'Connection: close\r\n\r\n' +
          body,
      );
    }
    socket.destroy(err);
  };
}
