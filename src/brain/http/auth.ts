import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { HttpApiError } from './errors.js';
import type { ApiScope } from '../api/index.js';
import type { TokenIdentity, TokenStore } from './token-store.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a token needs for this route; absent: any valid token. */
    scope?: ApiScope;
  }
}

const BEARER = /^Bearer +(\S+) *$/i;
const identities = new WeakMap<FastifyRequest, TokenIdentity>();

/** The authenticated token name of a request, once the auth hook accepted it. */
export function actorOf(req: FastifyRequest): string | undefined {
  return identities.get(req)?.name;
}

/** Whether the request's token holds `scope` (false before the auth hook accepted it). */
export function tokenHasScope(req: FastifyRequest, scope: ApiScope): boolean {
  return identities.get(req)?.scopes.has(scope) === true;
}

/** The verified token of a request (name, scopes, principal), once the auth hook accepted it. */
export function identityOf(req: FastifyRequest): TokenIdentity | undefined {
  return identities.get(req);
}

/**
 * `onRequest` hook: every route but the `publicRoutes` (route patterns) needs
 * `Authorization: Bearer <token>` naming a known token; otherwise 401 with
 * `WWW-Authenticate: Bearer` before the body is read, the rate limiter counts, or the
 * BrainService hears of it. Unknown routes need a token too, so they cannot be probed. A
 * route whose config names a `scope` answers 403 to a token without that scope.
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
    const identity = verifyHeader(tokens, req.headers.authorization);
    // `instanceof Error`, not HttpApiError: a generated class does not narrow the else branch
    if (identity instanceof Error) {
      done(identity);
      return;
    }
    const scope = req.routeOptions.config.scope;
    if (scope !== undefined && !identity.scopes.has(scope)) {
      const has = [...identity.scopes].join(', ');
      done(new HttpApiError('forbidden', { token: identity.name, scope, has }));
      return;
    }
    identities.set(req, identity);
    done();
  };
}

/** The token the Authorization header proves, or the 401 to answer. */
function verifyHeader(
  tokens: TokenStore,
  header: string | undefined,
): TokenIdentity | HttpApiError {
  if (header === undefined) {
    return new HttpApiError(
      'unauthorized',
      { problem: 'missing (send Authorization: Bearer <token>)' },
      { headers: { 'www-authenticate': 'Bearer realm="caesar"' } },
    );
  }
  const bearer = BEARER.exec(header)?.[1];
  const identity = bearer === undefined ? undefined : tokens.verify(bearer);
  if (identity === undefined) {
    return new HttpApiError(
      'unauthorized',
      { problem: 'unknown or malformed' },
      {
        headers: { 'www-authenticate': 'Bearer realm="caesar", error="invalid_token"' },
      },
    );
  }
  return identity;
}
