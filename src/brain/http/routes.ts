import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { recordToJsonLine } from '../../audit/index.js';
import { CallableNameSchema, ToolTagSchema } from '../../protocol/index.js';
import {
  ChatRequestSchema,
  ConfirmRequestSchema,
  ExplainRequestSchema,
  InvokeRequestSchema,
  principalOf,
  type Caller,
  type Principal,
  type Whoami,
} from '../api/index.js';
import type { BrainService, JobListResponse, JobView } from '../api/index.js';
import { errorClass } from '../../errors/index.js';
import { AuditFilterParams, AuditQueryParams } from './audit-query.js';
import type { AuditTail } from './audit-tail.js';
import { DASHBOARD_ROUTES } from './dashboard.js';
import { identityOf } from './auth.js';
import { chatTurn } from './chat-stream.js';
import { clientGoneSignal } from './client-gone.js';
import type { BrainMetrics } from './metrics.js';
import { acceptsEventStream, serveEventStream, type ChatStreamOptions } from './sse.js';
import { parseRequest } from './validate.js';

/** Routes that need no token: the probe, and the dashboard's static files (no data). */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set(['/healthz', ...DASHBOARD_ROUTES]);

/** Routes probes and scrapers call often: logged at debug, not info. */
export const QUIET_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

interface RouteDeps {
  readonly service: BrainService;
  readonly metrics: BrainMetrics;
  readonly messageMaxChars: number;
  /** Heartbeats, stall time and slots of streamed chat turns. */
  readonly chatStreams: ChatStreamOptions;
  /** The live tail of the audit log (`GET /v1/events`). */
  readonly tail: AuditTail;
  /** A principal as the tokens file names it, with its groups (`TokenStore.principal`). */
  readonly principal: (name: string) => Principal | undefined;
}

const ToolParams = z.strictObject({ name: CallableNameSchema });
/** A tag list in a query: `home,network`, or the parameter repeated; at most 32 tags. */
const TagList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) =>
    (Array.isArray(v) ? v : [v])
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  )
  .pipe(z.array(ToolTagSchema).max(32));
const ToolsQuery = z.strictObject({
  include_tags: TagList.optional(),
  exclude_tags: TagList.optional(),
});
/** A row's seq, as a query parameter or header gives it. */
const SeqText = z
  .string({ error: 'expected one value' })
  .regex(/^\d{1,15}$/, 'expected a whole number')
  .transform(Number);
/** `GET /v1/events?after_seq=N`: resume after the row with seq N. */
const EventsQuery = z.strictObject({ after_seq: SeqText.optional() });
/** `Last-Event-ID`, which SSE clients send when they reconnect: the same as `after_seq`. */
const EventsHeaders = z.looseObject({ 'last-event-id': SeqText.optional() });
const ConfirmationParams = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'expected 1-128 letters, digits, `.`, `_`, `:` or `-`'),
});

const JobParams = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected a job id: 1-64 letters, digits, `_` or `-`'),
});
const JobListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
});

/** An id no job has: one answer for every unknown id. */
const JobNotFoundError = errorClass('job_not_found', (id: string) => ({
  params: { id: JSON.stringify(id.slice(0, 64)) },
}));

/** The chat body: the contract's strict schema plus the configured length cap. */
function chatSchema(maxChars: number) {
  return ChatRequestSchema.superRefine((req, ctx) => {
    if (req.message.length > maxChars) {
      ctx.addIssue({
        code: 'custom',
        path: ['message'],
        message: `too long: at most ${maxChars} characters (got ${req.message.length})`,
      });
    }
  });
}

/**
 * Who asked: the verified token's name as the actor and its principal (ADR 0096), taken from
 * the token alone, never from the request's body.
 */
export function callerOf(req: FastifyRequest, sessionId?: string): Caller {
  const identity = identityOf(req);
  // The auth hook runs first on every non-public route; reaching here without it is a bug.
  if (identity === undefined) {
    throw new Error(`route ${req.routeOptions.url} ran unauthenticated`);
  }
  const caller = { actor: identity.name, requestId: req.id, principal: identity.principal };
  return sessionId === undefined ? caller : { ...caller, sessionId };
}

/**
 * Whom an explanation judges (ADR 0096): the asking token's own principal, or the one the
 * body names with the groups the tokens file gives it, plus any `groups` the body adds. A
 * what-if: no call is made as that principal.
 */
function explainedFor(
  deps: RouteDeps,
  req: FastifyRequest,
  name: string | undefined,
  groups: readonly string[] | undefined,
): Principal {
  const base =
    name === undefined
      ? principalOf(callerOf(req))
      : (deps.principal(name) ?? { name, groups: [] });
  if (groups === undefined) return base;
  return { name: base.name, groups: [...new Set([...base.groups, ...groups])] };
}

/** Registers every route of the API (docs/api.md). */
export function registerRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const { service, metrics } = deps;
  const chat = chatSchema(deps.messageMaxChars);

  app.get('/healthz', () => ({ status: 'ok' }));

  app.get('/readyz', async (_req, reply) => {
    const readiness = await service.readiness();
    void reply.code(readiness.ready ? 200 : 503);
    return readiness;
  });

  // any valid token may learn its own name (the dashboard's header): the name only, never
  // the token or the other tokens' names
  app.get('/v1/whoami', (req): Whoami => ({ name: callerOf(req).actor }));

  app.get('/metrics', { config: { scope: 'metrics' } }, async (_req, reply) => {
    const text = await metrics.render();
    void reply.type(metrics.contentType);
    return text;
  });

  app.post('/v1/chat', { config: { scope: 'chat' } }, async (req, reply) => {
    const body = parseRequest(chat, req.body);
    const caller = callerOf(req, body.session_id);
    if (acceptsEventStream(req.headers.accept)) {
      return serveEventStream(req, reply, chatTurn(service, body, caller), deps.chatStreams);
    }
    return service.chat(body, caller, { signal: clientGoneSignal(reply) });
  });

  app.get('/v1/tools', { config: { scope: 'read' } }, async (req) => {
    const query = parseRequest(ToolsQuery, req.query);
    return service.listTools({
      includeTags: query.include_tags ?? [],
      excludeTags: query.exclude_tags ?? [],
    });
  });

  app.get('/v1/capabilities', { config: { scope: 'read' } }, () => service.capabilities());

  app.post('/v1/tools/:name/invoke', { config: { scope: 'invoke' } }, async (req) => {
    const { name } = parseRequest(ToolParams, req.params);
    const { input } = parseRequest(InvokeRequestSchema, req.body);
    return service.invoke(name, input, callerOf(req));
  });

  app.get('/v1/confirmations', { config: { scope: 'confirm' } }, () =>
    service.pendingConfirmations(),
  );

  app.post('/v1/confirmations/:id', { config: { scope: 'confirm' } }, async (req) => {
    const { id } = parseRequest(ConfirmationParams, req.params);
    const { approve, stop_turn } = parseRequest(ConfirmRequestSchema, req.body);
    if (stop_turn !== true) return service.confirm(id, approve, callerOf(req));
    return service.confirm(id, approve, callerOf(req), { stopTurn: true });
  });

  // jobs (ADR 0098): reading them is `read`, cancelling one `invoke` (it ends a call)
  app.get('/v1/jobs', { config: { scope: 'read' } }, (req): JobListResponse => {
    const { limit } = parseRequest(JobListQuery, req.query);
    return { jobs: service.listJobs(limit) };
  });

  app.get('/v1/jobs/:id', { config: { scope: 'read' } }, (req): JobView => {
    const { id } = parseRequest(JobParams, req.params);
    const job = service.job(id);
    if (job === undefined) throw new JobNotFoundError(id);
    return job;
  });

  app.post(
    '/v1/jobs/:id/cancel',
    { config: { scope: 'invoke' } },
    async (req): Promise<JobView> => {
      const { id } = parseRequest(JobParams, req.params);
      const job = await service.cancelJob(id, callerOf(req));
      if (job === undefined) throw new JobNotFoundError(id);
      return job;
    },
  );

  app.get('/v1/policy', { config: { scope: 'read' } }, () => service.policyStatus());

  app.post('/v1/policy/explain', { config: { scope: 'read' } }, (req) => {
    const { tool, input, flow, principal, groups } = parseRequest(ExplainRequestSchema, req.body);
    const who = explainedFor(deps, req, principal, groups);
    return service.explain(tool, input, flow, who);
  });

  app.get('/v1/audit', { config: { scope: 'audit' } }, (req, reply) => {
    const query = parseRequest(AuditQueryParams, req.query);
    const records = service.auditQuery(query);
    // The export shape (`caesar audit export`): snake_case columns, payload parsed.
    void reply.type('application/json; charset=utf-8');
    return `[${records.map(recordToJsonLine).join(',')}]`;
  });

  app.get('/v1/events', { config: { scope: 'audit' } }, (req, reply) => {
    const { after_seq } = parseRequest(EventsQuery, req.query);
    const resumeAfter = after_seq ?? parseRequest(EventsHeaders, req.headers)['last-event-id'];
    return deps.tail.serve(req, reply, callerOf(req).actor, resumeAfter);
  });

  app.get('/v1/audit/counts', { config: { scope: 'audit' } }, (req) => {
    const counts = service.auditCounts(parseRequest(AuditFilterParams, req.query));
    return {
      total: counts.total,
      by_type: counts.byType,
      by_tool: counts.byTool,
      by_outcome: counts.byOutcome,
    };
  });
}
