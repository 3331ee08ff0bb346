import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { nuid, type NatsConnection, type Subscription } from '@nats-io/nats-core';
import { waitAtMost } from '../clock/index.js';
import { BusPermissionError, flushWhenConnected } from '../bus/index.js';
import { silentLogger, type Logger } from '../log/index.js';
import { envVarName, formatPath, toolSectionPath } from '../text/index.js';
import {
  ACTION_SEPARATOR,
  DISPATCH_QUEUE_GROUP,
  mayRunAsJob,
  REGISTRY_BYE_SUBJECT,
  zodFields,
  REGISTRY_HELLO_SUBJECT,
  type Bye,
  type Hello,
  type PreflightReply,
  type WorkerRef,
} from '../protocol/index.js';
import type { GrantVerifier } from '../protocol/grant.js';
import type { HostCapacity, WorkerRestarts } from '../protocol/index.js';
import { ReplySigner } from '../protocol/reply-signature.js';
import type { ToolStartContext } from './context.js';
import type { ToolDefinition } from './define.js';
import { callablesOf, type AnyToolDefinition } from './actions.js';
import { createCallHandler } from './call-handler.js';
import { ReplyCache, type ReplyCacheOptions } from './reply-cache.js';
import { listenForResultQueries, resendAfterReconnect } from './result-responder.js';
import { Limiter } from './limiter.js';
import { startJobTaker, type JobTaker, type JobTakerOptions } from './job-taker.js';
import { createPreflightHandler, runPreflight } from './preflight.js';
import { readHostCapacity } from './host-capacity.js';
import { ToolService, endpointSubjects } from './service.js';
import { EndpointStats } from './stats.js';
import { errorClass } from '../errors/index.js';

const encoder = new TextEncoder();

export interface ServeOptions {
  /** A connected client; the caller owns it (serveTools never closes it). */
  nc: NatsConnection;
  logger?: Logger;
  /** Host name reported in replies, hello and discovery. @default os.hostname() */
  host?: string;
  /**
   * Config sections by section name (`web_search`, `calendar`, `ha`; see
   * `toolConfigSections`), each checked against the `config` schema of the tools that read it.
   */
  config?: Record<string, unknown>;
  /** How long `stop()` lets in-flight calls finish before cutting them off. @default 10000 */
  graceMs?: number;
  /**
   * Signed dispatch grants (ADR 0052): with a verifier, a call runs only when a trusted brain
   * signed its grant; others are answered `grant_rejected`. Unset, calls are not checked:
   * any client allowed to publish on a tool's dispatch subject can make it act, and
   * serveTools says so in a warn line at start.
   */
  grants?: GrantVerifier;
  /**
   * Signs the answer to every call that carries a grant (ADR 0060); discovery declares its
   * public key as each instance's reply key, and a brain that signs grants takes no answer
   * without it. `runTools` gives the key of the worker's NKEY identity.
   * @default a key made for this worker (`ReplySigner.ephemeral()`)
   */
  replies?: ReplySigner;
  /**
   * How often `caesar up` restarted this worker, why the last time and when (ADR 0070):
   * each instance declares it in its discovery metadata (`caesar.restarts`), so the registry,
   * the dashboard and `legion list` show it.
   * @default none: a first start
   */
  restarts?: WorkerRestarts;
  /**
   * What this host has (vCPUs, memory, GPUs found), declared in discovery
   * (`caesar.capacity`) and compared with each tool's resource requirements in its preflight
   * (ADR 0091).
   * @default read from this host (`readHostCapacity()`)
   */
  capacity?: HostCapacity;
  /** How job tools take their jobs (ADR 0098): heartbeat and pull wait. */
  jobs?: JobTakerOptions;
  /**
   * Bounds of the replies kept for the brain's result queries (ADR 0099).
   * @default 4096 calls, 16 MiB, each kept 1 s past its deadline
   */
  replyCache?: ReplyCacheOptions;
}

export interface ToolInstance {
  readonly tool: string;
  readonly service: string;
  readonly id: string;
  readonly host: string;
}

export interface ToolWorker extends AsyncDisposable {
  readonly instances: readonly ToolInstance[];
  /** Runs each tool's preflight here, in-process. */
  preflight(): Promise<PreflightReply[]>;
  /** Calls accepted and not yet answered. */
  inFlight(): number;
  /**
   * Graceful stop: stop taking calls, let in-flight calls finish within the grace period
   * (then cut them off with `timeout`), publish `caesar.registry.bye`, close discovery,
   * run each tool's `stop`. Safe to call twice.
   */
  stop(): Promise<void>;
}

/** A config section that does not match the tool's schema; names the tool and fields. */
export const ToolConfigError = errorClass('tool_config_invalid');
export type ToolConfigError = InstanceType<typeof ToolConfigError>;

/** A callable whose start hook ran, not yet listening. */
interface Started {
  tool: ToolDefinition;
  ctx: ToolStartContext;
}

interface Running extends Started {
  service: ToolService;
  subs: Subscription[];
  /**
   * The brain's result queries (ADR 0099). Not required: an identity with permissions from
   * before them still serves, and the brain answers its lost calls `outcome_unknown`.
   */
  queries: Subscription;
  /** A job tool's job loop (ADR 0098). */
  jobs?: JobTaker;
}

/**
 * Serves tools over NATS until `stop()`: each callable (a tool, or each action of a tool with
 * several) an ADR-32 service instance with two endpoints.
 */
export async function serveTools(
  defined: readonly AnyToolDefinition[],
  options: ServeOptions,
): Promise<ToolWorker> {
  // a tool with actions serves each action as a callable of its own (ADR 0092)
  const tools = defined.flatMap(callablesOf);
  const { nc } = options;
  const host = options.host ?? hostname();
  const logger = options.logger ?? silentLogger();
  const graceMs = options.graceMs ?? 10_000;
  assertUnique(tools);

  const cutoff = new AbortController();
  // each callable's call handler listens for the cutoff: a tool with 16 actions is 16 listeners
  setMaxListeners(Math.max(10, tools.length + 1), cutoff.signal);
  const inflight = new Set<Promise<void>>();
  const replies = options.replies ?? ReplySigner.ephemeral();
  const capacity = options.capacity ?? readHostCapacity();
  const configs = new Map<unknown, Map<string, unknown>>();
  const cache = new ReplyCache(options.replyCache);
  const shared: Shared = {
    host,
    logger,
    cutoff: cutoff.signal,
    inflight,
    replies,
    capacity,
    configs,
    cache,
  };
  const started: Started[] = [];
  const running: Running[] = [];
  try {
    for (const tool of tools) started.push(await startOne(tool, options, shared));
    // Every callable listens in one turn, once every start hook has run: their subscriptions
    // leave in one write, so no discovery sweep finds one action of this worker without the
    // others (the brain's first sweep, ADR 0106), and no call is taken by a tool that a later
    // start's failure would take down again.
    for (const s of started) running.push(listen(s, options, shared));
    // The server answers a refused subscription with -ERR before the flush's PONG. A server
    // that went away meanwhile (a tool's start can take seconds) is waited for.
    await flushWhenConnected(nc);
    assertSubscribed(running);
    warnUnqueried(running, logger);
    for (const r of running) publishHello(nc, r);
    resendAfterReconnect(nc, cache, logger);
  } catch (err) {
    await Promise.allSettled(running.map((r) => closeOne(r)));
    await Promise.allSettled(started.slice(running.length).map((s) => stopOne(s)));
    throw err;
  }
  logger.info({ tools: running.map((r) => r.tool.spec.name), host }, 'serving tools');
  if (options.grants === undefined) {
    logger.warn(
      'dispatch grants are off (worker.require_grant: false): any client allowed to publish ' +
        "on these tools' dispatch subjects can make them run, with no policy decision or audit row",
    );
  } else {
    logger.info({ trustedBrains: options.grants.trusted }, 'dispatch grants required');
  }
  logger.info(
    { replyKey: replies.publicKey, ephemeral: replies.ephemeral },
    'answers to granted calls signed',
  );

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // Every step that talks to the server is bounded: a worker whose server is gone
      // must still stop.
      await waitAtMost(
        Promise.allSettled(running.flatMap((r) => [...r.subs, r.queries].map((s) => s.drain()))),
        2000,
      );
      await waitAtMost(
        Promise.allSettled(running.map((r) => r.jobs?.stop() ?? Promise.resolve())),
        graceMs,
      );
      if (!(await settleWithin(inflight, graceMs))) {
        logger.warn({ inFlight: inflight.size, graceMs }, 'grace period over; cutting off calls');
        cutoff.abort();
        await settleWithin(inflight, 1000);
      }
      // Discovery closes before the bye, so no sweep answer can follow the goodbye.
      await Promise.allSettled(running.map((r) => waitAtMost(r.service.close(), 2000)));
      for (const r of running) publishBye(nc, r);
      await waitAtMost(nc.flush(), 2000);
      await Promise.allSettled(running.map((r) => closeOne(r)));
      logger.info('tools stopped');
    })());

  return {
    instances: running.map((r) => ({
      tool: r.tool.spec.name,
      service: r.service.name,
      id: r.ctx.worker.id,
      host,
    })),
    preflight: () => Promise.all(running.map((r) => runPreflight(r.tool, r.ctx, logger, capacity))),
    inFlight: () => inflight.size,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** What every tool of one `serveTools` shares. */
interface Shared {
  host: string;
  logger: Logger;
  /** Aborts every call still running when the shutdown grace period ends. */
  cutoff: AbortSignal;
  inflight: Set<Promise<void>>;
  replies: ReplySigner;
  capacity: HostCapacity;
  /**
   * Each config section as parsed, by the schema that parsed it: the actions of one tool share
   * its schema and section, so their hooks and handlers see one config object (ADR 0092).
   */
  configs: Map<unknown, Map<string, unknown>>;
  /** Every call's reply, for the brain's result queries (ADR 0099). */
  cache: ReplyCache;
}

/** Parses the callable's config section and runs its start hook. */
async function startOne(
  tool: ToolDefinition,
  options: ServeOptions,
  { host, logger, configs }: Shared,
): Promise<Started> {
  const worker: WorkerRef = { id: nuid.next(), host };
  const ctx: ToolStartContext = {
    logger: logger.child({ tool: tool.spec.name, workerId: worker.id }),
    config: sharedConfig(configs, tool, options.config?.[tool.configSection]),
    worker,
  };
  await tool.start?.(ctx);
  return { tool, ctx };
}

/** Subscribes a started callable's endpoints, discovery and job loop; synchronous. */
function listen(
  { tool, ctx }: Started,
  options: ServeOptions,
  { cutoff, inflight, replies, capacity, cache }: Shared,
): Running {
  const name = tool.spec.name;
  const { worker, logger } = ctx;
  const subjects = endpointSubjects(name);
  const limiter = new Limiter(tool.spec.max_concurrency, tool.spec.max_queue);
  const dispatchStats = new EndpointStats();
  const preflightStats = new EndpointStats();
  const declared = { restarts: options.restarts, capacity };
  const service = new ToolService(tool, worker, replies, declared, [
    {
      name: 'dispatch',
      subject: subjects.dispatch,
      stats: dispatchStats,
      data: () => ({ in_flight: limiter.active, queued: limiter.queued }),
    },
    { name: 'preflight', subject: subjects.preflight, stats: preflightStats },
  ]);
  const onCall = createCallHandler({
    tool,
    config: ctx.config,
    worker,
    logger,
    limiter,
    stats: dispatchStats,
    cutoff,
    inflight,
    maxPayload: () => options.nc.info?.max_payload,
    replies,
    cache,
    ...(options.grants ? { grants: options.grants } : {}),
  });
  const onPreflight = createPreflightHandler(tool, ctx, preflightStats, logger, capacity);
  const { nc } = options;
  const subs = [
    nc.subscribe(subjects.dispatch, {
      queue: DISPATCH_QUEUE_GROUP,
      callback: (err, msg) =>
        err ? logger.error({ err }, 'dispatch subscription failed') : onCall(msg),
    }),
    nc.subscribe(subjects.preflight, {
      queue: DISPATCH_QUEUE_GROUP,
      callback: (err, msg) =>
        err ? logger.error({ err }, 'preflight subscription failed') : onPreflight(msg),
    }),
  ];
  service.listen(nc);
  const jobs =
    mayRunAsJob(tool.spec) && !name.includes(ACTION_SEPARATOR)
      ? startJobTaker({
          nc,
          tool,
          config: ctx.config,
          worker,
          logger,
          capacity,
          ...options.jobs,
          ...(options.grants ? { grants: options.grants } : {}),
        })
      : undefined;
  const queries = listenForResultQueries(nc, name, worker, cache, logger);
  return { tool, ctx, service, subs, queries, ...(jobs ? { jobs } : {}) };
}

/** Throws BusPermissionError naming every subject the server refused, tool by tool. */
function assertSubscribed(running: readonly Running[]): void {
  const refused = running.flatMap((r) => {
    const subjects = [
      ...r.subs.filter((s) => s.isClosed()).map((s) => s.getSubject()),
      ...r.service.refused(),
    ];
    return subjects.length === 0 ? [] : [{ tool: r.tool.spec.name, subjects }];
  });
  if (refused.length === 0) return;
  const tools = refused.map((r) => r.tool);
  const what = refused.map((r) => `${r.tool}: ${r.subjects.join(', ')}`).join('; ');
  throw new BusPermissionError({
    refused: `this worker's subscriptions (${what})`,
    why: `its identity may not receive ${tools.join(', ')}'s calls`,
    next: `Give it the permissions that \`caesar legion permissions ${tools.join(' ')}\` prints (docs/operations.md)`,
  });
}

/** Says which instances the brain cannot ask about lost calls (their identity may not hear it). */
function warnUnqueried(running: readonly Running[], logger: Logger): void {
  const refused = running.filter((r) => r.queries.isClosed()).map((r) => r.queries.getSubject());
  if (refused.length === 0) return;
  logger.warn(
    { refused },
    'the server refused the result-query subscription: calls whose reply the bus loses end ' +
      '`outcome_unknown` instead of with their result; `caesar legion permissions` prints the ' +
      'permissions that allow it (ADR 0099)',
  );
}

/** The tool's config section, parsed once per schema and section (see `Shared.configs`). */
function sharedConfig(
  configs: Map<unknown, Map<string, unknown>>,
  tool: ToolDefinition,
  section: unknown,
): unknown {
  const bySection = configs.get(tool.config) ?? new Map<string, unknown>();
  configs.set(tool.config, bySection);
  if (bySection.has(tool.configSection)) return bySection.get(tool.configSection);
  const parsed = parseConfig(tool, section);
  bySection.set(tool.configSection, parsed);
  return parsed;
}

function parseConfig(tool: ToolDefinition, section: unknown): unknown {
  if (!tool.config) return section;
  const parsed = tool.config.safeParse(section ?? {});
  if (parsed.success) return parsed.data;
  const at = toolSectionPath(tool.configSection);
  const fields = zodFields(parsed.error, { at })
    .map((f) => `${formatPath(f.path)} (${envVarName(f.path.map(String))}): ${f.message}`)
    .join('; ');
  throw new ToolConfigError({ tool: tool.spec.name, problem: fields });
}

async function closeOne(r: Running): Promise<void> {
  await waitAtMost(Promise.resolve(r.jobs?.stop()), 2000);
  await waitAtMost(Promise.allSettled([...r.subs, r.queries].map((s) => s.drain())), 2000);
  await waitAtMost(r.service.close(), 2000);
  await stopOne(r);
}

/** Runs the callable's stop hook; a hook that throws is logged. */
async function stopOne(s: Started): Promise<void> {
  try {
    await s.tool.stop?.();
  } catch (err) {
    s.ctx.logger.warn({ err }, 'tool stop hook failed');
  }
}

function publishHello(nc: NatsConnection, r: Running): void {
  const hello: Hello = {
    v: 1,
    tool: r.tool.spec.name,
    service: r.service.name,
    instance_id: r.ctx.worker.id,
    host: r.ctx.worker.host,
    version: r.tool.spec.version,
    spec_sha256: r.tool.specSha256,
  };
  nc.publish(REGISTRY_HELLO_SUBJECT, encoder.encode(JSON.stringify(hello)));
}

function publishBye(nc: NatsConnection, r: Running): void {
  const bye: Bye = {
    v: 1,
    tool: r.tool.spec.name,
    instance_id: r.ctx.worker.id,
    host: r.ctx.worker.host,
    reason: 'shutdown',
  };
  try {
    nc.publish(REGISTRY_BYE_SUBJECT, encoder.encode(JSON.stringify(bye)));
  } catch (err) {
    r.ctx.logger.warn({ err }, 'could not publish bye');
  }
}

function assertUnique(tools: ToolDefinition[]): void {
  const seen = new Set<string>();
  for (const t of tools) {
    if (seen.has(t.spec.name)) {
      throw new ToolConfigError({ tool: t.spec.name, problem: 'the worker lists it twice' });
    }
    seen.add(t.spec.name);
  }
}

/** Resolves true once every tracked call has answered, false if `ms` passes first. */
async function settleWithin(inflight: Set<Promise<void>>, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (inflight.size > 0) {
    const left = until - Date.now();
    if (left <= 0) return false;
    await waitAtMost(Promise.allSettled([...inflight]), left);
  }
  return true;
}
