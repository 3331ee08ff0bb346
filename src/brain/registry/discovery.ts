import type { NatsConnection } from '@nats-io/nats-core';
import { z } from 'zod';
import { silentLogger, type Logger } from '../../log/index.js';
import {
  SrvStatsSchema,
  dispatchSubject,
  readWireJson,
  splitCallable,
  srvSubject,
  toolFromServiceName,
  type SrvStats,
  type ToolSpec,
  type WorkerRestarts,
} from '../../protocol/index.js';
import { checkHints } from './confirm.js';
import { parseInfoReply, SpecCache, type ToolInstanceInfo } from './instance.js';
import { compareVersions } from './semver.js';
import { collectReplies } from './srv-client.js';

interface SweepResult {
  /** Every valid CAESAR INFO answer: what it claims, not yet confirmed. */
  instances: ToolInstanceInfo[];
  /** Replies from CAESAR services that failed validation (one line each, for logs). */
  invalid: string[];
}

/** Tools a sweep waits for: it ends `graceMs` after an instance of each has answered. */
export interface AwaitedTools {
  /** Callables (`tool`, `tool.action`) or tools, whose any action counts (ADR 0092). */
  readonly tools: readonly string[];
  readonly graceMs: number;
}

/**
 * One discovery sweep: `$SRV.INFO` to every service, replies gathered for `windowMs`.
 * Foreign services are skipped; malformed CAESAR ones are reported in `invalid`. Any client
 * allowed to subscribe to `$SRV.INFO` can answer, so the instances are hints for
 * `checkHints`, never facts (a hint that ends the gathering early costs an instance no more
 * than a late answer does: its hello or the next sweep lists it).
 */
export async function sweepInfo(
  nc: NatsConnection,
  windowMs: number,
  specs: SpecCache,
  stallMs?: number,
  awaited?: AwaitedTools,
): Promise<SweepResult> {
  const result: SweepResult = { instances: [], invalid: [] };
  const waiting = new Set(awaited?.tools);
  // with no tool to wait for, no answer ends the gathering early
  const awaiting = waiting.size > 0;
  const read = (data: Uint8Array): boolean => {
    const parsed = parseInfoReply(data, specs);
    if (parsed.kind === 'invalid') result.invalid.push(parsed.reason);
    if (parsed.kind !== 'instance') return false;
    result.instances.push(parsed.instance);
    const callable = parsed.instance.tool;
    waiting.delete(callable);
    waiting.delete(splitCallable(callable).tool);
    return awaiting && waiting.size === 0;
  };
  const until = { enough: read, graceMs: awaited?.graceMs ?? 0 };
  await collectReplies(nc, srvSubject('INFO'), windowMs, stallMs, until);
  return result;
}

/** Dispatch-endpoint figures from one instance's ADR-32 STATS. */
interface InstanceStats {
  /** When the instance started (ISO 8601, as the service reports it). */
  started: string;
  /** Calls answered (ADR-32 `num_requests` of the dispatch endpoint). */
  requests: number;
  /** Calls answered with an error. */
  errors: number;
  lastError: string;
  averageProcessingMs: number;
  /** Calls running now. */
  inFlight: number;
  /** Calls waiting for a slot. */
  queued: number;
}

interface DiscoveredInstance {
  id: string;
  host: string;
  version: string;
  specSha256: string;
  /** Its restarts under `caesar up` (ADR 0070); absent on a first start. */
  restarts?: WorkerRestarts;
  /** Absent when the instance answered INFO but not STATS within the window. */
  stats?: InstanceStats;
}

export interface DiscoveredTool {
  tool: string;
  /** The newest version any instance runs. */
  version: string;
  /** The spec of that newest version. */
  spec: ToolSpec;
  /** Sorted by host, then id. */
  instances: DiscoveredInstance[];
  /** Distinct hosts, sorted. */
  hosts: string[];
  /** Sums over the instances that answered STATS. */
  inFlight: number;
  requests: number;
  errors: number;
}

interface DiscoverOptions {
  /** How long to gather replies. @default 1000 */
  windowMs?: number;
  logger?: Logger;
}

/** Instances `caesar legion list` asks about at most. */
const MAX_LISTED_INSTANCES = 4096;

const StatsDataSchema = z.object({ in_flight: z.number(), queued: z.number() }).partial();

/**
 * One-shot discovery for `caesar legion list`: INFO and STATS from every CAESAR tool
 * instance, grouped by tool and sorted by name. Like the registry, it lists an instance and
 * its spec only as the instance's own `$SRV.INFO.<service>.<id>` subject states them.
 */
export async function discoverServices(
  nc: NatsConnection,
  options: DiscoverOptions = {},
): Promise<DiscoveredTool[]> {
  const windowMs = options.windowMs ?? 1000;
  const logger = options.logger ?? silentLogger();
  const specs = new SpecCache();
  const [info, statsReplies] = await Promise.all([
    sweepInfo(nc, windowMs, specs),
    collectReplies(nc, srvSubject('STATS'), windowMs),
  ]);
  for (const reason of info.invalid) logger.debug({ reason }, 'ignoring invalid INFO reply');
  // answers to the generic INFO are hints: list what each instance says on its own subject
  const checked = await checkHints(nc, info.instances, {
    timeoutMs: windowMs,
    specs,
    maxInstances: MAX_LISTED_INSTANCES,
  });
  for (const reason of checked.reasons) logger.debug({ reason }, 'INFO answer not confirmed');
  for (const { tool, id, restartsIgnored } of checked.confirmed) {
    if (restartsIgnored !== undefined) {
      logger.debug({ tool, instanceId: id, reason: restartsIgnored }, 'ignored its restarts');
    }
  }
  const stats = indexStats(statsReplies);
  const byTool = new Map<string, ToolInstanceInfo[]>();
  for (const inst of checked.confirmed) {
    const list = byTool.get(inst.tool) ?? [];
    list.push(inst);
    byTool.set(inst.tool, list);
  }
  return [...byTool.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([tool, list]) => summarise(tool, list, stats));
}

function indexStats(replies: Uint8Array[]): Map<string, SrvStats> {
  const out = new Map<string, SrvStats>();
  for (const data of replies) {
    const read = readWireJson(data);
    if ('why' in read) continue;
    const parsed = SrvStatsSchema.safeParse(read.value);
    if (parsed.success && toolFromServiceName(parsed.data.name) !== undefined) {
      out.set(`${parsed.data.name}/${parsed.data.id}`, parsed.data);
    }
  }
  return out;
}

function summarise(
  tool: string,
  list: ToolInstanceInfo[],
  stats: Map<string, SrvStats>,
): DiscoveredTool {
  const newest = list.reduce((a, b) => (compareVersions(b.version, a.version) > 0 ? b : a));
  const instances = list
    .map((i) => toDiscovered(i, stats.get(`${i.service}/${i.id}`)))
    .sort((a, b) => (a.host === b.host ? (a.id < b.id ? -1 : 1) : a.host < b.host ? -1 : 1));
  const sum = (f: (s: InstanceStats) => number) =>
    instances.reduce((n, i) => n + (i.stats ? f(i.stats) : 0), 0);
  return {
    tool,
    version: newest.version,
    spec: newest.spec,
    instances,
    hosts: [...new Set(instances.map((i) => i.host))].sort(),
    inFlight: sum((s) => s.inFlight),
    requests: sum((s) => s.requests),
    errors: sum((s) => s.errors),
  };
}

function toDiscovered(inst: ToolInstanceInfo, stats: SrvStats | undefined): DiscoveredInstance {
  const out: DiscoveredInstance = {
    id: inst.id,
    host: inst.host,
    version: inst.version,
    specSha256: inst.specSha256,
    ...(inst.restarts === undefined ? {} : { restarts: inst.restarts }),
  };
  const dispatch = stats?.endpoints.find((e) => e.subject === dispatchSubject(inst.tool));
  if (stats && dispatch) {
    const data = StatsDataSchema.safeParse(dispatch.data ?? {});
    out.stats = {
      started: stats.started,
      requests: dispatch.num_requests,
      errors: dispatch.num_errors,
      lastError: dispatch.last_error,
      averageProcessingMs: dispatch.average_processing_time / 1e6,
      inFlight: data.success ? (data.data.in_flight ?? 0) : 0,
      queued: data.success ? (data.data.queued ?? 0) : 0,
    };
  }
  return out;
}
