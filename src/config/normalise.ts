import { join, resolve } from 'node:path';
import type { BusAuth } from '../bus/index.js';
import { inboxPrefix } from '../protocol/index.js';
import { isPlainObject } from './layer.js';
import { DEFAULT_TOKENS_FILE_NAME, type ParsedConfig } from './schema.js';
import { SHIPPED_INTENTS_FILE } from './shipped.js';
import type { BusConfig, CaesarConfig, ConfigBusOptions } from './types.js';

export interface NormaliseContext {
  /** Absolute directory relative paths are resolved against. */
  readonly cwd: string;
  readonly configFile?: string;
  /** Default for `worker.host`. */
  readonly hostname: string;
}

/** Step three of loading: camelCase keys, `…Ms` durations, absolute paths, bus options. */
export function normaliseConfig(raw: ParsedConfig, ctx: NormaliseContext): CaesarConfig {
  const abs = (path: string): string => resolve(ctx.cwd, path);
  const dataDir = abs(raw.data_dir);
  const bus = normaliseBus(raw.bus, abs);
  return {
    ...(ctx.configFile === undefined ? {} : { configFile: ctx.configFile }),
    dataDir,
    log: { level: raw.log.level },
    bus,
    busOptions: busOptionsOf(bus),
    worker: { host: raw.worker.host ?? ctx.hostname, graceMs: raw.worker.grace },
    embedded: {
      natsHost: raw.embedded.nats_host,
      natsPort: raw.embedded.nats_port,
      ...optional('natsConfig', raw.embedded.nats_config, abs),
    },
    policy: { file: abs(raw.policy.file) },
    audit: {
      file: pathOr(raw.audit.file, join(dataDir, 'audit.db'), abs),
      retentionDays: raw.audit.retention_days,
    },
    api: {
      host: raw.api.host,
      port: raw.api.port,
      tokensFile: pathOr(raw.api.tokens_file, join(dataDir, DEFAULT_TOKENS_FILE_NAME), abs),
      bodyLimitBytes: raw.api.body_limit,
      rateLimitPerMinute: raw.api.rate_limit,
    },
    brain: {
      maxIterations: raw.brain.max_iterations,
      callTimeoutMs: raw.brain.call_timeout,
      confirmationTtlMs: raw.brain.confirmation_ttl,
      historyLimit: raw.brain.history_limit,
      messageMaxChars: raw.brain.message_max_chars,
      intentsFile: pathOr(raw.brain.intents_file, SHIPPED_INTENTS_FILE, abs),
      conversationsFile: pathOr(
        raw.brain.conversations_file,
        join(dataDir, 'conversations.db'),
        abs,
      ),
    },
    llm: { provider: raw.llm.provider },
    tools: toolSections(raw.tools),
  };
}

function normaliseBus(bus: ParsedConfig['bus'], abs: (p: string) => string): BusConfig {
  return {
    servers: bus.url,
    ...optional('nkeySeedFile', bus.nkey_seed_file, abs),
    ...optional('credsFile', bus.creds_file, abs),
    ...optional('token', bus.token),
    ...optional('inboxIdentity', bus.inbox_identity),
    reconnectWaitMs: bus.reconnect_wait,
    reconnectJitterMs: bus.reconnect_jitter,
    connectTimeoutMs: bus.connect_timeout,
  };
}

function busOptionsOf(bus: BusConfig): ConfigBusOptions {
  return {
    servers: [...bus.servers],
    auth: authOf(bus),
    ...optional('inboxPrefix', bus.inboxIdentity, inboxPrefix),
    reconnectTimeWaitMs: bus.reconnectWaitMs,
    reconnectJitterMs: bus.reconnectJitterMs,
    connectTimeoutMs: bus.connectTimeoutMs,
  };
}

function authOf(bus: BusConfig): BusAuth {
  if (bus.token !== undefined) return { kind: 'token', token: bus.token };
  if (bus.nkeySeedFile !== undefined) return { kind: 'nkey', seedFile: bus.nkeySeedFile };
  if (bus.credsFile !== undefined) return { kind: 'creds', credsFile: bus.credsFile };
  return { kind: 'none' };
}

/** `{ [key]: map(value) }` when value is set, else `{}`: keeps unset keys out of the result. */
function optional<K extends string>(
  key: K,
  value: string | undefined,
  map: (v: string) => string = (v) => v,
): { [P in K]?: string } {
  return value === undefined ? {} : ({ [key]: map(value) } as { [P in K]: string });
}

function pathOr(value: string | undefined, fallback: string, abs: (p: string) => string): string {
  return value === undefined ? fallback : abs(value);
}

/** Copies tool sections as written, dropping keys left without a value. */
function toolSections(tools: ParsedConfig['tools']): CaesarConfig['tools'] {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [tool, section] of Object.entries(tools)) {
    out[tool] = copyValue(section) as Record<string, unknown>;
  }
  return out;
}

function copyValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyValue);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined) out[key] = copyValue(v);
  return out;
}
