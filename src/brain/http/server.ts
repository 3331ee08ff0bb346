import rateLimit from '@fastify/rate-limit';
import { maxHeaderSize } from 'node:http';
import {
  fastify,
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
} from 'fastify';
import type { Logger } from '../../log/index.js';
import type { BrainService } from '../api/index.js';
import { SHIPPED_DASHBOARD_DIR } from '../../config/index.js';
import { actorOf, authHook } from './auth.js';
import { AuditTail } from './audit-tail.js';
import { registerDashboard } from './dashboard.js';
import { clientErrorHandler, CONNECTIONS_CHECK_INTERVAL_MS } from './client-errors.js';
import { logMapped, mapError, sendMappedError, type MappedError } from './error-map.js';
import { HttpApiError, HttpBindError, HttpPortTakenError } from './errors.js';
import { registerJsonBodyParser } from './json-body.js';
import { isLoopbackHost } from './loopback.js';
import type { BrainMetrics } from './metrics.js';
import { openAiRoutes } from './openai-routes.js';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js';
import { registerMcp } from './mcp.js';
import { PUBLIC_ROUTES, QUIET_ROUTES, registerRoutes } from './routes.js';
import { DEFAULT_HEARTBEAT_MS } from './sse.js';
import { CHAT_STREAMS, EVENT_STREAMS, StreamSlots, type StreamSlotLimits } from './stream-slots.js';
import type { TokenStore } from './token-store.js';

/** Everything the server needs; the daemon builds it from the config's `api` section. */
export interface HttpServerOptions {
  readonly service: BrainService;
  readonly tokens: TokenStore;
  readonly metrics: BrainMetrics;
  readonly logger: Logger;
  /** Largest request body; larger ones get 413. @default 1048576 (config `api.body_limit`) */
  readonly bodyLimitBytes: number;
  /**
   * Requests per minute per token; 0 turns the limit off.
   * @default 600 (config `api.rate_limit`)
   */
  readonly rateLimitPerMinute: number;
  /** Longest chat message. @default 8000 (config `brain.message_max_chars`) */
  readonly messageMaxChars: number;
  /** Interval of heartbeat comments on an event stream. @default 15000 */
  readonly heartbeatMs?: number;
  /**
   * The whole request (headers and body) must arrive within this, or it is answered 408
   * `request_timeout` (slow-loris guard); checked every second. Not a config setting: tests
   * shorten it. @default 30000
   */
  readonly requestTimeoutMs?: number;
  /** Where the dashboard's files are. @default the package's `web/dashboard` */
  readonly dashboardDir?: string;
  /** Slots of each stream kind and the stall time; each part has its default. */
  readonly streams?: StreamOptions;
}

/** How the long-lived responses are bounded (config `api.*_streams*`, `api.stream_stall`). */
export interface StreamOptions {
  /** Live audit streams (`GET /v1/events`). @default {max: 8, perToken: 3} */
  readonly events?: StreamSlotLimits;
  /**
   * Streamed chat turns (`/v1/chat` as events, `/v1/chat/completions` streamed).
   * @default {max: 32, perToken: 8}
   */
  readonly chat?: StreamSlotLimits;
  /** A client that has not shown it reads for this long loses its stream. @default 60000 */
  readonly stallMs?: number;
}

interface ListenOptions {
  /** @default '127.0.0.1' (config `api.host`) */
  readonly host: string;
  /** 0 picks a free port. @default 8420 (config `api.port`) */
  readonly port: number;
}

/** The whole request (headers and body) must arrive within this (slow-loris guard). */
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** A socket with no traffic at all for this long is closed (a chat may think for minutes). */
const CONNECTION_TIMEOUT_MS = 600_000;
/** The defaults of the config's `api.max_event_streams*`, `api.max_chat_streams*`, `api.stream_stall`. */
const DEFAULT_EVENT_SLOTS: StreamSlotLimits = { max: 8, perToken: 3 };
const DEFAULT_CHAT_SLOTS: StreamSlotLimits = { max: 32, perToken: 8 };
const DEFAULT_STALL_MS = 60_000;
/** An idle keep-alive connection is closed after this. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

const tokenStores = new WeakMap<FastifyInstance, TokenStore>();

function errorBody(m: MappedError, requestId: string) {
  const error = {
    code: m.code,
    message: m.message,
    ...(m.details === undefined ? {} : { details: m.details }),
  };
  return { error, request_id: requestId };
}

/**
 * Builds the brain's HTTP API (docs/api.md) over a BrainService: bearer-token auth on every
 * route but `/healthz`, request ids, body and rate limits, zod validation with field paths,
 * and one error shape. Tool-level outcomes are 200 reports; only the caller's mistakes
 * (4xx) and bugs (500 `internal`) are HTTP errors. Not listening yet: `startHttpServer`.
 */
export async function buildHttpServer(options: HttpServerOptions): Promise<FastifyInstance> {
  const { service, tokens, metrics, logger, bodyLimitBytes, rateLimitPerMinute } = options;
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const log: FastifyBaseLogger = logger;
  const app = fastify({
    loggerInstance: log,
    // Our own onResponse line replaces fastify's request logging, which would log `req`.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestIdOf,
    requestIdHeader: false,
    bodyLimit: bodyLimitBytes,
    requestTimeout,
    // Node's own headers bound defaults to 60 s; the documented bound covers headers too.
    http: {
      headersTimeout: requestTimeout,
      connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
    },
    clientErrorHandler: clientErrorHandler(requestTimeout, maxHeaderSize),
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    frameworkErrors: (err, req, reply) => {
      sendError(reply, req.id, mapError(err, bodyLimitBytes));
    },
  });
  tokenStores.set(app, tokens);
  app.removeContentTypeParser('text/plain');
  registerJsonBodyParser(app);

  app.addHook('onRequest', (req, reply, done) => {
    reply.header(REQUEST_ID_HEADER, req.id).headers({
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    done();
  });
  app.addHook('onRequest', authHook(tokens, PUBLIC_ROUTES));
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? '(unmatched)';
    metrics.httpRequest(req.method, route, reply.statusCode, reply.elapsedTime);
    const line = {
      method: req.method,
      route,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime),
      actor: actorOf(req),
    };
    if (QUIET_ROUTES.has(route)) req.log.debug(line, 'http request');
    else req.log.info(line, 'http request');
    done();
  });

  app.setErrorHandler((err, req, reply) => {
    const mapped = mapError(err, bodyLimitBytes);
    logMapped(req, err, mapped);
    sendError(reply, req.id, mapped);
  });

  if (rateLimitPerMinute > 0) {
    await app.register(rateLimit, {
      max: rateLimitPerMinute,
      timeWindow: 60_000,
      // Per token name, not per IP; requests with no token (/healthz) are not counted.
      keyGenerator: (req) => actorOf(req) ?? '',
      allowList: (req) => actorOf(req) === undefined,
      errorResponseBuilder: (_req, ctx) =>
        new HttpApiError('too_many_requests', {
          why: `this token is over its ${ctx.max} requests per minute`,
          next: `retry in ${ctx.after}`,
        }),
    });
  }
  const { messageMaxChars, heartbeatMs = DEFAULT_HEARTBEAT_MS, streams = {} } = options;
  const stallMs = streams.stallMs ?? DEFAULT_STALL_MS;
  const tail = new AuditTail(service, {
    slots: new StreamSlots(EVENT_STREAMS, streams.events ?? DEFAULT_EVENT_SLOTS),
    heartbeatMs,
    stallMs,
  });
  const chatStreams = {
    slots: new StreamSlots(CHAT_STREAMS, streams.chat ?? DEFAULT_CHAT_SLOTS),
    heartbeatMs,
    stallMs,
  };
  app.addHook('preClose', (done) => {
    tail.closeAll();
    done();
  });
  const principal = (name: string) => tokens.principal(name);
  registerRoutes(app, { service, metrics, messageMaxChars, chatStreams, tail, principal });
  registerMcp(app, service);
  registerDashboard(app, options.dashboardDir ?? SHIPPED_DASHBOARD_DIR);
  await app.register(openAiRoutes, { service, messageMaxChars, bodyLimitBytes, chatStreams });
  app.setNotFoundHandler(rateLimitPerMinute > 0 ? { preHandler: app.rateLimit() } : {}, (req) => {
    const path = (req.url.split('?')[0] ?? '').slice(0, 200);
    throw new HttpApiError('not_found', { what: `route ${req.method} ${path}` });
  });
  return app;
}

function sendError(reply: FastifyReply, requestId: string, m: MappedError): void {
  sendMappedError(reply, requestId, m, errorBody(m, requestId));
}

/**
 * Listens on `host:port` and resolves with the bound URL (`http://127.0.0.1:8420`). Refuses
 * a non-loopback host while the token store is empty: an API that nobody can call is
 * harmless on loopback, but an empty store on a LAN address is a misconfiguration.
 */
export async function startHttpServer(
  app: FastifyInstance,
  listen: ListenOptions,
): Promise<string> {
  const tokens = tokenStores.get(app);
  if (tokens === undefined) {
    throw new Error('startHttpServer: app was not built by buildHttpServer');
  }
  const loopback = isLoopbackHost(listen.host);
  if (!loopback && tokens.size === 0) throw new HttpBindError(listen.host);
  let url: string;
  try {
    url = await app.listen({ host: listen.host, port: listen.port });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    throw new HttpPortTakenError(listen.host, listen.port, { cause: err });
  }
  if (!loopback) {
    const why = 'bearer tokens travel in clear text unless TLS terminates in front';
    app.log.warn({ url }, `HTTP API on a non-loopback address: ${why}`);
  }
  return url;
}
