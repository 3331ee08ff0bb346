import { join, resolve } from 'node:path';
import { inboxPrefix } from '../protocol/index.js';
import { isModulePath, isPlainObject } from '../text/index.js';
import {
  DEFAULT_LLM_BASE_URLS,
  DEFAULT_TOKENS_FILE_NAME,
  TOOL_LIMITS_KEY,
  type ModelProvider,
  type ParsedConfig,
} from './schema.js';
import { DEFAULT_INTENTS_FILE_NAME, DEFAULT_POLICY_FILE_NAME } from './shipped.js';
import type {
  BusAuth,
  BusConfig,
  CaesarConfig,
  ConfigBusOptions,
  LlmConfig,
  LlmEndpointConfig,
  ToolLimits,
} from './types.js';

interface NormaliseContext {
  /** Absolute directory relative paths are resolved against. */
  readonly cwd: string;
  readonly configFile?: string;
  /** Default for `worker.host`. */
  readonly hostname: string;
  /**
   * The machine's zone, shown as `brain.time_zone`'s default (`caesar config show`). Unset:
   * that key stays unset and the brain looks the zone up itself.
   */
  readonly timeZone?: string;
}

/**
 * The parsed config with every computed default filled in and every path absolute, still
 * snake_case: what `caesar config show` prints, and what {@link normaliseConfig} renames.
 */
export type ResolvedConfig = ParsedConfig & {
  readonly worker: { readonly host: string };
  readonly policy: { readonly file: string };
  readonly audit: { readonly file: string };
  readonly api: { readonly tokens_file: string };
  readonly brain: {
    readonly intents_file: string;
    readonly conversations_file: string;
    readonly time_zone?: string;
  };
};

/**
 * Fills the defaults that depend on other keys or on the machine (`<data_dir>/audit.db`,
 * `<data_dir>/policy.yaml`, the host name) and resolves relative paths against `ctx.cwd`.
 * A key whose `fieldMeta` has a `defaultText` must be filled here.
 */
export function resolveConfig(raw: ParsedConfig, ctx: NormaliseContext): ResolvedConfig {
  const abs = (path: string): string => resolve(ctx.cwd, path);
  const absOpt = (path: string | undefined) => (path === undefined ? undefined : abs(path));
  const dataDir = abs(raw.data_dir);
  return {
    ...raw,
    data_dir: dataDir,
    bus: {
      ...raw.bus,
      nkey_seed_file: absOpt(raw.bus.nkey_seed_file),
      creds_file: absOpt(raw.bus.creds_file),
    },
    worker: {
      ...raw.worker,
      host: raw.worker.host ?? ctx.hostname,
      // a package name stays as written: it is found from node_modules, not from ctx.cwd
      modules: raw.worker.modules.map((m) => (isModulePath(m) ? abs(m) : m)),
    },
    embedded: { ...raw.embedded, nats_config: absOpt(raw.embedded.nats_config) },
    policy: {
      ...raw.policy,
      file: pathOr(raw.policy.file, join(dataDir, DEFAULT_POLICY_FILE_NAME), abs),
    },
    audit: { ...raw.audit, file: pathOr(raw.audit.file, join(dataDir, 'audit.db'), abs) },
    api: {
      ...raw.api,
      tokens_file: pathOr(raw.api.tokens_file, join(dataDir, DEFAULT_TOKENS_FILE_NAME), abs),
    },
    brain: {
      ...raw.brain,
      intents_file: pathOr(raw.brain.intents_file, join(dataDir, DEFAULT_INTENTS_FILE_NAME), abs),
      time_zone: raw.brain.time_zone ?? ctx.timeZone,
      conversations_file: pathOr(
        raw.brain.conversations_file,
        join(dataDir, 'conversations.db'),
        abs,
      ),
    },
  };
}

/** Step three of loading: camelCase keys, `…Ms` durations, absolute paths, bus options. */
export function normaliseConfig(raw: ParsedConfig, ctx: NormaliseContext): CaesarConfig {
  const r = resolveConfig(raw, ctx);
  const bus = normaliseBus(r.bus);
  return {
    ...(ctx.configFile === undefined ? {} : { configFile: ctx.configFile }),
    dataDir: r.data_dir,
    log: { level: r.log.level, format: r.log.format },
    bus,
    busOptions: busOptionsOf(bus),
    worker: {
      host: r.worker.host,
      graceMs: r.worker.grace,
      trustedBrains: r.worker.trusted_brains,
      requireGrant: r.worker.require_grant,
      modules: r.worker.modules,
      importTimeoutMs: r.worker.import_timeout,
      maxHeapMb: r.worker.max_heap,
    },
    watchdog: {
      timeoutMs: r.watchdog.timeout,
      stopGraceMs: r.watchdog.stop_grace,
      thread: r.watchdog.thread,
    },
    embedded: {
      natsHost: r.embedded.nats_host,
      natsPort: r.embedded.nats_port,
      ...optional('natsConfig', r.embedded.nats_config),
    },
    policy: { file: r.policy.file, maxFileBytes: r.policy.max_file_bytes },
    audit: {
      file: r.audit.file,
      retentionDays: r.audit.retention_days,
      writerIdleMs: r.audit.writer_idle,
    },
    api: {
      host: r.api.host,
      port: r.api.port,
      tokensFile: r.api.tokens_file,
      bodyLimitBytes: r.api.body_limit,
      rateLimitPerMinute: r.api.rate_limit,
      streams: {
        events: { max: r.api.max_event_streams, perToken: r.api.max_event_streams_per_token },
        chat: { max: r.api.max_chat_streams, perToken: r.api.max_chat_streams_per_token },
        stallMs: r.api.stream_stall,
      },
    },
    brain: {
      maxIterations: r.brain.max_iterations,
      callTimeoutMs: r.brain.call_timeout,
      confirmationTtlMs: r.brain.confirmation_ttl,
      historyLimit: r.brain.history_limit,
      messageMaxChars: r.brain.message_max_chars,
      ...optional('timeZone', r.brain.time_zone),
      intentsFile: r.brain.intents_file,
      conversationsFile: r.brain.conversations_file,
      preferLocal: r.brain.prefer_local,
      trustedWorkers: trustedWorkers(r.brain.trusted_workers),
    },
    llm: normaliseLlm(r.llm),
    ha: copyValue(r.ha) as CaesarConfig['ha'],
    tools: toolSections(r.tools),
    toolLimits: toolLimits(r.tools[TOOL_LIMITS_KEY]),
  };
}

function normaliseLlm(llm: ParsedConfig['llm']): LlmConfig {
  const endpoint = (provider: ModelProvider): LlmEndpointConfig => {
    const own = llm[provider];
    const model = own.model ?? (provider === llm.provider ? llm.model : undefined);
    const temperature = own.temperature ?? llm.temperature;
    return {
      provider,
      baseUrl: own.base_url ?? DEFAULT_LLM_BASE_URLS[provider],
      ...optional('apiKey', own.api_key),
      ...optional('model', model),
      timeoutMs: own.timeout ?? llm.timeout,
      maxTokens: own.max_tokens ?? llm.max_tokens,
      ...(temperature === undefined ? {} : { temperature }),
    };
  };
  return {
    provider: llm.provider,
    fallback: [...llm.fallback],
    ...optional('systemPrompt', llm.system_prompt),
    retries: llm.retries,
    mode: llm.mode,
    maxCallsPerRound: llm.max_calls_per_round,
    maxCallsPerTurn: llm.max_calls_per_turn,
    includeTags: [...llm.include_tags],
    excludeTags: [...llm.exclude_tags],
    endpoints: {
      openai: endpoint('openai'),
      anthropic: endpoint('anthropic'),
      ollama: endpoint('ollama'),
    },
  };
}

function normaliseBus(bus: ParsedConfig['bus']): BusConfig {
  return {
    servers: bus.url,
    ...optional('nkeySeedFile', bus.nkey_seed_file),
    ...optional('credsFile', bus.creds_file),
    ...optional('token', bus.token),
    ...optional('inboxIdentity', bus.inbox_identity),
    reconnectWaitMs: bus.reconnect_wait,
    reconnectJitterMs: bus.reconnect_jitter,
    connectTimeoutMs: bus.connect_timeout,
    jetstreamReplicas: bus.jetstream_replicas,
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

/** Copies tool sections as written, dropping keys left without a value (and `limits`). */
function toolSections(tools: ParsedConfig['tools']): CaesarConfig['tools'] {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [tool, section] of Object.entries(tools)) {
    if (tool !== TOOL_LIMITS_KEY) out[tool] = copyValue(section) as Record<string, unknown>;
  }
  return out;
}

function toolLimits(l: ParsedConfig['tools'][typeof TOOL_LIMITS_KEY]): ToolLimits {
  return {
    ...(l.max_vcpus === undefined ? {} : { maxVcpus: l.max_vcpus }),
    ...(l.max_memory_gb === undefined ? {} : { maxMemoryGb: l.max_memory_gb }),
    ...(l.max_wall_clock === undefined ? {} : { maxWallClockMs: l.max_wall_clock }),
    ...(l.max_concurrent_jobs_per_tool === undefined
      ? {}
      : { maxJobsPerTool: l.max_concurrent_jobs_per_tool }),
    ...(l.max_concurrent_jobs === undefined ? {} : { maxJobs: l.max_concurrent_jobs }),
    allowGpu: l.allow_gpu,
  };
}

function copyValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyValue);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined) out[key] = copyValue(v);
  return out;
}

/** `brain.trusted_workers` entries (`<tool>=<key>`, checked by the schema) by tool. */
function trustedWorkers(entries: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const entry of entries) {
    const at = entry.indexOf('=');
    const tool = entry.slice(0, at);
    const key = entry.slice(at + 1);
    const keys = (out[tool] ??= []);
    if (!keys.includes(key)) keys.push(key);
  }
  return out;
}
