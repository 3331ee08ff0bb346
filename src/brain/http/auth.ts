import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { HttpApiError } from './errors.js';
import type { TokenStore } from './token-store.js';

const BEARER = /^Bearer +(\S+) *$/i;
const actors = new WeakMap<FastifyRequest, string>();

/** The authenticated token name of a request, once the auth hook accepted it. */
export function actorOf(req: FastifyRequest): string | undefined {
  return actors.get(req);
}

/**
 * `onRequest` hook: every route but the `publicRoutes` (route patterns) needs
 * `Authorization: Bearer <token>` naming a known token; otherwise 401 with
 * `WWW-Authenticate: Bearer` before the body is read, the rate limiter counts, or the
 * BrainService hears of it. Unknown routes need a token too, so they cannot be probed.
 */
export function authHook(tokens: TokenStore, publicRoutes: ReadonlySet<string>) {
  return function authenticate(
    req: FastifyRequest,
    _reply: FastifyReply,
    done: HookHandlerDoneFunction,
  ): void {
    const route = req.routeOptions.url;
    if (route !== undefined && publicRoutes.has(route)) {
      done();
      return;
    }
    const name = verifyHeader(tokens, req.headers.authorization);
    if (name instanceof HttpApiError) {
      done(name);
      return;
    }
    actors.set(req, name);
    done();
  };
}

/** The token name the Authorization header proves, or the 401 to answer. */
function verifyHeader(tokens: TokenStore, header: string | undefined): string | HttpApiError {
  if (header === undefined) {
    return new HttpApiError(
      'unauthorized',
      'missing bearer token (Authorization: Bearer <token>)',
      {
        headers: { 'www-authenticate': 'Bearer realm="caesar"' },
      },
    );
  }
  const bearer = BEARER.exec(header)?.[1];
  const name = bearer === undefined ? undefined : tokens.verify(bearer);
  if (name === undefined) {
    return new HttpApiError('unauthorized', 'unknown or malformed bearer token', {
      headers: { 'www-authenticate': 'Bearer realm="caesar", error="invalid_token"' },
    });
  }
  return name;
}
