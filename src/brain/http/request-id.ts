import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Header carrying the request id both ways. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** A client-chosen request id is kept only when it matches this; otherwise one is generated. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** fastify `genReqId`: the client's `X-Request-Id` when well-formed, else a random UUID. */
export function requestIdOf(raw: IncomingMessage): string {
  const given = raw.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
}
