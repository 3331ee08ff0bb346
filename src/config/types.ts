import type { FieldKind } from './fields.js';
import type { LlmProvider, LogFormatSetting, LogLevel, ModelProvider } from './schema.js';

/**
 * How a process authenticates to NATS, as the operator configured it: exactly one kind;
 * `none` for a loopback dev server. The config owns this shape (it describes what was
 * written); `connectBus()` in src/bus takes it as is.
 */
export type BusAuth =
  | { readonly kind: 'none' }
  | { readonly kind: 'token'; readonly token: string }
  | { readonly kind: 'nkey'; readonly seedFile: string }
  | { readonly kind: 'creds'; readonly credsFile: string };

/** The `bus` section, normalised. Exactly one or none of the three auth keys is set. */
export interface BusConfig {
  /** Server URLs (a cluster when several). */
  readonly servers: readonly string[];
  /** Absolute path of the NKEY seed file. */
  readonly nkeySeedFile?: string;
  /** Absolute path of the NATS credentials file. */
  readonly credsFile?: string;
  /** Shared auth token. Secret: `redactSettings` hides it. */
  readonly token?: string;
  readonly inboxIdentity?: string;
  readonly reconnectWaitMs: number;
  readonly reconnectJitterMs: number;
  readonly connectTimeoutMs: number;
  /** Replicas of the jobs streams (ADR 0101). */
  readonly jetstreamReplicas: number;
}

/**
 * Ready for `connectBus()` (src/bus BusOptions). Frozen like the rest of the config:
 * `servers` is typed mutable only so it can be passed as is; copy before changing it.
 */
export interface ConfigBusOptions {
  readonly servers: string[];
  readonly auth: BusAuth;
  /** `_INBOX.<inbox_identity>`; absent means the client default `_INBOX`. */
  readonly inboxPrefix?: string;
  readonly reconnectTimeWaitMs: number;
  readonly reconnectJitterMs: number;
  readonly connectTimeoutMs: number;
}

/** The loaded configuration: camelCase keys, durations in ms, absolute paths, deep-frozen. */
export interface CaesarConfig {
  /** Absolute path of the `caesar.yaml` that was read; undefined when none was. */
  readonly configFile?: string;
  readonly dataDir: string;
  readonly log: { readonly level: LogLevel; readonly format: LogFormatSetting };
  readonly bus: BusConfig;
  readonly busOptions: ConfigBusOptions;
  readonly worker: {
    readonly host: string;
    readonly graceMs: number;
    /** Public keys whose dispatch grants count (ADR 0052). */
    readonly trustedBrains: readonly string[];
    /** `worker.modules`: tool modules, paths made absolute, package names as written. */
    readonly modules: readonly string[];
    /** `worker.import_timeout`: how long one tool module may take to import. */
    readonly importTimeoutMs: number;
    readonly requireGrant: boolean;
    /** `worker.max_heap`: the V8 heap ceiling of a worker `caesar up` starts, MB. */
    readonly maxHeapMb: number;
  };
  /** Finding and ending stuck processes (ADR 0070). */
  readonly watchdog: {
    /** 0: off. */
    readonly timeoutMs: number;
    readonly stopGraceMs: number;
    readonly thread: 'auto' | 'on' | 'off';
  };
  readonly embedded: {
    readonly natsHost: string;
    /** 0 means any free port. */
    readonly natsPort: number;
    readonly natsConfig?: string;
  };
  readonly policy: { readonly file: string; readonly maxFileBytes: number };
  readonly audit: {
    readonly file: string;
    readonly retentionDays: number;
    readonly writerIdleMs: number;
  };
  readonly api: {
    readonly host: string;
    /** 0 means any free port. */
    readonly port: number;
    readonly tokensFile: string;
    readonly bodyLimitBytes: number;
    /** Requests per minute per token; 0 means no limit. */
    readonly rateLimitPerMinute: number;
    /** Slots of each stream kind, for the brain and per token, and the stall time. */
    readonly streams: StreamLimitsConfig;
  };
  readonly brain: {
    readonly maxIterations: number;
    readonly callTimeoutMs: number;
    readonly confirmationTtlMs: number;
    readonly historyLimit: number;
    readonly messageMaxChars: number;
    /**
     * IANA zone for dates in local intents. Unset: the machine's zone, which the brain looks
     * up itself, so that no other process pays for ICU's date data (about 7 MB; ADR 0048).
     */
    readonly timeZone?: string;
    /** Absolute path; the shipped `config/intents.yaml` when not configured. */
    readonly intentsFile: string;
    readonly conversationsFile: string;
    /** Local intent rules before the LLM on every message. */
    readonly preferLocal: boolean;
    /** Reply keys the brain accepts per tool, when it knows them (ADR 0060). */
    readonly trustedWorkers: Readonly<Record<string, readonly string[]>>;
  };
  readonly llm: LlmConfig;
  /**
   * Home Assistant, snake_case as its tools (`call_service`, `ha_entities`) parse it, like a
   * tool section: `{url?, token?, timeout_seconds, verify_ssl}`. `token` is secret.
   */
  readonly ha: Readonly<Record<string, unknown>>;
  /** Per-tool sections as written (snake_case keys); each tool's schema parses its own. */
  readonly tools: { readonly [tool: string]: Readonly<Record<string, unknown>> };
  /** `tools.limits`: what the operator lets a tool ask of a host (ADR 0091). */
  readonly toolLimits: ToolLimits;
}

/** Operator limits on a tool's resource requirements; an unset one is no limit. */
export interface ToolLimits {
  readonly maxVcpus?: number;
  readonly maxMemoryGb?: number;
  readonly maxWallClockMs?: number;
  /** Jobs of one tool queued or running at once (ADR 0098). */
  readonly maxJobsPerTool?: number;
  /** Jobs queued or running at once over every tool (ADR 0098). */
  readonly maxJobs?: number;
  /** @default true */
  readonly allowGpu: boolean;
}

/** How many streams of one kind may be open: in all, and per API token. */
export interface StreamSlotsConfig {
  readonly max: number;
  readonly perToken: number;
}

/** The `api.*_streams*` and `api.stream_stall` settings, normalised. */
export interface StreamLimitsConfig {
  readonly events: StreamSlotsConfig;
  readonly chat: StreamSlotsConfig;
  /** A client that has not shown it reads for this long loses its stream. */
  readonly stallMs: number;
}

/** One model endpoint, every key filled from the provider's section or the `llm` section. */
export interface LlmEndpointConfig {
  readonly provider: ModelProvider;
  readonly baseUrl: string;
  /** Secret: `redactSettings` hides it. */
  readonly apiKey?: string;
  /** Unset only for a provider that is neither the primary nor a fallback and names none. */
  readonly model?: string;
  readonly timeoutMs: number;
  readonly maxTokens: number;
  readonly temperature?: number;
}

/** The `llm` section, normalised. */
export interface LlmConfig {
  readonly provider: LlmProvider;
  /** Providers tried in order after the primary. */
  readonly fallback: readonly ModelProvider[];
  readonly systemPrompt?: string;
  /** Retries of one request (429, 5xx, timeout) before the next provider. */
  readonly retries: number;
  /** `react`, or `plan_first`: the whole plan before any tool result is read (ADR 0069). */
  readonly mode: 'react' | 'plan_first';
  /** Tool calls that run per planning round, and per turn (ADR 0065). */
  readonly maxCallsPerRound: number;
  readonly maxCallsPerTurn: number;
  readonly includeTags: readonly string[];
  readonly excludeTags: readonly string[];
  readonly endpoints: Readonly<Record<ModelProvider, LlmEndpointConfig>>;
}

/** One effective setting, as `loadConfigWithSources()` reports it. */
export interface ConfigSetting {
  /**
   * The value in effect, as caesar.yaml would write it after parsing: defaults applied,
   * durations in milliseconds, URL lists as arrays, paths absolute, computed defaults
   * (`<data_dir>/audit.db`, the host name) filled in. `undefined` when the key is not set.
   */
  readonly value: unknown;
  /**
   * Where the value came from: `default`, `/etc/caesar/caesar.yaml:3:10`,
   * `env CAESAR_BUS__URL`, `env CAESAR_BUS__TOKEN_FILE -> /run/secrets/nats_token`, or the
   * name of the overrides (`overrides`, `flag`).
   */
  readonly source: string;
  /** How the schema reads the key (`duration` values are in ms); absent under `tools`. */
  readonly kind?: FieldKind;
  /** The value is a credential: marked secret in the schema, or a secret-looking key name. */
  readonly secret: boolean;
}
