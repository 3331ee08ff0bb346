import { z } from 'zod';
import { inboxPrefix, ToolNameSchema } from '../protocol/index.js';
import { NKEY_USER_PUBLIC_KEY } from '../protocol/nkey-shape.js';
import { isTimeZone } from '../clock/index.js';
import {
  durationField,
  fieldMeta,
  httpUrlField,
  listField,
  numberField,
  pathField,
  secretField,
  serverListField,
} from './fields.js';
import { HaSectionSchema } from './ha-section.js';
import { DEFAULT_INTENTS_FILE_NAME, DEFAULT_POLICY_FILE_NAME } from './shipped.js';

/** pino levels; `silent` turns logging off. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** How log lines are written (src/log's `LogFormat`, which the compiler holds this to). */
const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;
export type LogFormatSetting = (typeof LOG_FORMATS)[number];

/** The embedded server of `caesar up`, on loopback. */
const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

/** The three ways to authenticate to NATS; at most one may be set. */
export const BUS_AUTH_KEYS = ['nkey_seed_file', 'creds_file', 'token'] as const;

/** `<tool>=<NKEY public key>`: one entry of `brain.trusted_workers`. */
function isTrustedWorker(entry: string): boolean {
  const at = entry.indexOf('=');
  return (
    ToolNameSchema.safeParse(entry.slice(0, at)).success &&
    NKEY_USER_PUBLIC_KEY.test(entry.slice(at + 1))
  );
}

function isInboxIdentity(identity: string): boolean {
  try {
    inboxPrefix(identity);
    return true;
  } catch {
    return false;
  }
}

const LogSchema = z
  .strictObject({
    level: z
      .enum(LOG_LEVELS)
      .default('info')
      .describe('Lowest level written to the log on stderr; `silent` writes nothing.'),
    format: z
      .enum(LOG_FORMATS)
      .default('auto')
      .describe(
        "How log lines are written on stderr: `auto` writes one readable line per event (time, level, component, message, fields) when stderr is a terminal and one JSON object per line otherwise (a pipe, a file, the systemd journal); `pretty` and `json` force one. `caesar up`'s children always write JSON, which `caesar up` reads and shows readable on its terminal.",
      ),
  })
  .prefault({})
  .describe('Logging.');

const BusSchema = z
  .strictObject({
    url: serverListField()
      .prefault(DEFAULT_NATS_URL)
      .describe(
        'NATS server to connect to: one URL, or several (a cluster) as a comma-separated list or a YAML list. `nats://host:port`, `tls://host:port` or `host:port`.',
      ),
    nkey_seed_file: pathField()
      .optional()
      .describe(
        "File holding this identity's NKEY seed (`SU…`). At most one of `nkey_seed_file`, `creds_file` and `token`.",
      )
      .register(fieldMeta, { example: '/etc/caesar/nkeys/worker-kitchen.nk' }),
    creds_file: pathField()
      .optional()
      .describe(
        'NATS credentials file (JWT and NKEY seed). At most one of `nkey_seed_file`, `creds_file` and `token`.',
      )
      .register(fieldMeta, { example: '/etc/caesar/worker-kitchen.creds' }),
    token: secretField(
      'token',
      'Shared NATS auth token; prefer the env var to writing it in a file. Never printed. At most one of `nkey_seed_file`, `creds_file` and `token`.',
    ),
    inbox_identity: z
      .string()
      .refine(isInboxIdentity, 'expected 1-64 letters, digits, `_` or `-`')
      .optional()
      .describe(
        'Least-privilege reply inbox: replies arrive on `_INBOX.<inbox_identity>.>`, so NATS permissions can allow only that prefix. Unset: `_INBOX.<public key>.>` with an NKEY (what `caesar legion identity new --brain` grants), else `_INBOX.>`.',
      )
      .register(fieldMeta, { example: 'worker-kitchen' }),
    reconnect_wait: durationField()
      .prefault('2s')
      .describe('Base wait between reconnect attempts; reconnects never give up.'),
    reconnect_jitter: durationField()
      .prefault('1s')
      .describe(
        'Random extra wait added to each reconnect attempt, so hosts do not reconnect in step.',
      ),
    connect_timeout: durationField()
      .prefault('5s')
      .describe('How long the first connection may take before the command fails.'),
    jetstream_replicas: z
      .number()
      .int()
      .min(1)
      .max(5)
      .default(1)
      .describe(
        "Copies the brain keeps of the jobs streams in a clustered JetStream (ADR 0101): 3 on a cluster of 3 or more servers, so a job survives a dead server; 1 on one server. `caesar up --cluster <n>` sets min(3, n), and 1 for n = 2 (two servers hold no quorum once one is gone). An existing stream is changed to it at the brain's start.",
      ),
  })
  .superRefine((bus, ctx) => {
    const set = BUS_AUTH_KEYS.filter((key) => bus[key] !== undefined);
    if (set.length < 2) return;
    for (const key of set) {
      const others = set.filter((k) => k !== key).join(', ');
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `set only one of ${BUS_AUTH_KEYS.join(', ')} (also set: ${others})`,
      });
    }
  })
  .prefault({})
  .describe('Connection to NATS, shared by the brain, workers and the CLI.');

const WorkerSchema = z
  .strictObject({
    host: z
      .string()
      .min(1, 'expected a host name')
      .optional()
      .describe('Host name a worker reports in replies, discovery metadata and logs.')
      .register(fieldMeta, { defaultText: 'the machine host name', example: 'kitchen-pi' }),
    grace: durationField()
      .prefault('10s')
      .describe('On stop, how long a worker lets running calls finish before it closes.'),
    trusted_brains: listField(
      z
        .string()
        .regex(
          NKEY_USER_PUBLIC_KEY,
          'expected an NKEY public key (U and 55 letters or digits), as `caesar legion identity new <name> --brain` prints',
        ),
    )
      .prefault([])
      .describe(
        "Public keys of the brains whose signed dispatch grants a worker accepts (ADR 0052): the brain's NKEY identity. Two during a key rotation. `caesar up` sets it for its workers; `--trusted-brain` adds one (or a file holding one, such as the `<name>.pub` that `identity new --brain` writes).",
      )
      .register(fieldMeta, { example: 'UBRAIN…' }),
    modules: listField(z.string().min(1, 'expected a file path or a package name'))
      .prefault([])
      .describe(
        "Tools of your own that `caesar up` serves beside the shipped ones (ADR 0055): each a file path (starting with `./` or `/`, relative to the working directory) or an installed package name, whose default export is the tool's definition (docs/legion.md). `caesar legion new <name>` writes one.",
      )
      .register(fieldMeta, { example: '[./greeter]' }),
    import_timeout: durationField()
      .prefault('10s')
      .describe(
        "How long each tool module (`worker.modules`, `--module`) may take to import: its top-level code. One that is still importing then is refused, naming the module, and the worker ends rather than wait: move waiting work (a connection, a download) into the module's `start(ctx)` or its handler. `caesar legion serve-tool --import-timeout` overrides it.",
      ),
    max_heap: z
      .number()
      .int()
      .min(32, 'expected at least 32 (MB): a worker needs about 20 MB of heap to start')
      .max(65536)
      .default(256)
      .describe(
        "The V8 heap ceiling of each worker `caesar up` starts, in MB (`--max-old-space-size`): a worker that reaches it ends and is restarted, `worker.restarted` says `memory` (ADR 0070). A worker started by hand takes Node's own flag (`NODE_OPTIONS=--max-old-space-size=256`).",
      ),
    require_grant: z
      .boolean()
      .default(true)
      .describe(
        'Run only calls that carry a grant signed by a trusted brain; others are answered `grant_rejected`. Off: any client allowed to publish on a dispatch subject can make the worker act, and the worker says so at start.',
      ),
  })
  .prefault({})
  .describe('Tool workers (`caesar legion serve-tool`).');

const WatchdogSchema = z
  .strictObject({
    timeout: durationField()
      .prefault('10s')
      .describe(
        "How long a process's event loop may not run before it is killed with SIGKILL and restarted (ADR 0070). `caesar up` watches the brain and each worker by a heartbeat over its IPC channel, and its nats-server by a connection it must greet; a worker or brain run alone is watched by a thread of its own (`watchdog.thread`). 0 watches nothing (for a debugger that stops the process).",
      ),
    stop_grace: durationField()
      .prefault('5s')
      .describe(
        'When `caesar up` stops, how long each child (and any process below it, in whatever group or session) has after SIGTERM before SIGKILL.',
      ),
    thread: z
      .enum(['auto', 'on', 'off'])
      .default('auto')
      .describe(
        'A watchdog thread in the brain and each worker that kills the process when its own event loop has not run for `watchdog.timeout` (about 7 MB of memory per process). `auto`: in a process run alone (by hand, by systemd), where nothing else would notice; not under `caesar up`, whose heartbeat does it. `on` under `caesar up` too, so a stuck child also ends when `caesar up` itself was killed with SIGKILL.',
      ),
  })
  .superRefine((watchdog, ctx) => {
    if (watchdog.timeout === 0 || watchdog.timeout >= 2000) return;
    ctx.addIssue({
      code: 'custom',
      path: ['timeout'],
      message: 'expected 0 (off) or at least 2s: a process says it runs every 0.5 s',
    });
  })
  .prefault({})
  .describe('Finding and ending stuck processes (ADR 0070).');

const EmbeddedSchema = z
  .strictObject({
    nats_host: z
      .string()
      .min(1, 'expected a host or address')
      .default('127.0.0.1')
      .describe('Address the embedded nats-server of `caesar up` listens on.'),
    nats_port: z
      .number()
      .int()
      .min(0)
      .max(65535)
      .default(4222)
      .describe('Port of the embedded nats-server; 0 picks any free port.'),
    nats_config: pathField()
      .optional()
      .describe(
        'nats-server config file for the embedded server, used instead of the built-in one.',
      )
      .register(fieldMeta, { example: './config/nats-server.conf' }),
  })
  .prefault({})
  .describe('The nats-server that `caesar up` starts on this machine.');

const PolicySchema = z
  .strictObject({
    file: pathField()
      .optional()
      .describe(
        'The policy file (default deny). `caesar up` and `caesar brain` copy the shipped `policy/policy.yaml` to the default place on first start, never over an existing file.',
      )
      .register(fieldMeta, {
        defaultText: `\`<data_dir>/${DEFAULT_POLICY_FILE_NAME}\``,
        example: './policy/policy.yaml',
      }),
    max_file_bytes: z
      .number()
      .int()
      .min(1024)
      .default(524_288)
      .describe(
        'Largest policy file in bytes (512 KiB: 2,500 to 4,500 rules of four lines); a larger one is refused at start and on reload, keeping the last good policy.',
      ),
  })
  .prefault({})
  .describe('Tool-call policy.');

const AuditSchema = z
  .strictObject({
    file: pathField()
      .optional()
      .describe('SQLite file of the audit log.')
      .register(fieldMeta, { defaultText: '`<data_dir>/audit.db`', example: './var/audit.db' }),
    retention_days: z.number().int().min(1).default(90).describe('Days audit events are kept.'),
    writer_idle: durationField()
      .prefault('60s')
      .describe(
        "How long the audit log's writer thread may have nothing to write before it stops, giving its memory back (about 6 MiB); the next write starts it again and waits about 70 ms for it. `0s` keeps it running.",
      ),
  })
  .prefault({})
  .describe('Audit log.');

/** Where `caesar up` and `caesar brain` look for the API tokens by default. */
export const DEFAULT_TOKENS_FILE_NAME = 'api-tokens.yaml';

const ApiSchema = z
  .strictObject({
    host: z
      .string()
      .min(1, 'expected a host or address')
      .default('127.0.0.1')
      .describe(
        "Address the brain's HTTP API listens on. A non-loopback address is refused unless the tokens file holds at least one token.",
      ),
    port: z
      .number()
      .int()
      .min(0)
      .max(65535)
      .default(8420)
      .describe('Port of the HTTP API; 0 picks any free port.'),
    tokens_file: pathField()
      .optional()
      .describe(
        'YAML file of named API tokens (`tokens: [{name, token, scopes?, principal?, groups?}]`, mode 0600). Created with one token named `operator` (every scope) when missing. The name is what the audit log records as `actor`; `scopes` limits a token to some routes (docs/api.md).',
      )
      .register(fieldMeta, {
        defaultText: `\`<data_dir>/${DEFAULT_TOKENS_FILE_NAME}\``,
        example: '/etc/caesar/api-tokens.yaml',
      }),
    body_limit: z
      .number()
      .int()
      .min(1024)
      .default(1_048_576)
      .describe('Largest request body in bytes; larger requests get 413.'),
    rate_limit: z
      .number()
      .int()
      .min(0)
      .default(600)
      .describe('Requests per minute per token; beyond it 429. 0 turns the limit off.'),
    max_event_streams: z
      .number()
      .int()
      .min(1)
      .default(8)
      .describe('Live audit streams (`GET /v1/events`) open at once; one more is answered 429.'),
    max_event_streams_per_token: z
      .number()
      .int()
      .min(1)
      .default(3)
      .describe(
        'Live audit streams one token may hold at once, within `api.max_event_streams`; one more is answered 429.',
      ),
    max_chat_streams: z
      .number()
      .int()
      .min(1)
      .default(32)
      .describe(
        'Streamed chat turns (`POST /v1/chat` as events, `POST /v1/chat/completions` with `stream: true`) open at once; one more is answered 429.',
      ),
    max_chat_streams_per_token: z
      .number()
      .int()
      .min(1)
      .default(8)
      .describe(
        'Streamed chat turns one token may hold at once, within `api.max_chat_streams`; one more is answered 429.',
      ),
    stream_stall: durationField(100)
      .prefault('60s')
      .describe(
        'A stream whose client has not shown for this long that it reads is closed and its slot freed: a live audit stream ends (the client resumes with `after_seq`), a streamed chat turn whose client stopped taking its events is cut and stopped (docs/api.md, "Streams and abandoned requests").',
      ),
  })
  .prefault({})
  .describe("The brain's HTTP API.");

const BrainSchema = z
  .strictObject({
    max_iterations: z
      .number()
      .int()
      .min(1)
      .max(50)
      .default(5)
      .describe(
        'Planner rounds per chat message; reaching the cap is told to the user and audited.',
      ),
    call_timeout: durationField()
      .prefault('30s')
      .describe("Deadline of one tool call; a tool's own `timeoutMs` may cut it shorter."),
    confirmation_ttl: durationField()
      .prefault('2m')
      .describe('How long a call waiting for confirmation may be approved.'),
    history_limit: z
      .number()
      .int()
      .min(2)
      .max(1000)
      .default(40)
      .describe('Messages kept per conversation; older ones are dropped.'),
    message_max_chars: z
      .number()
      .int()
      .min(1)
      .default(8000)
      .describe('Longest chat message accepted, in characters.'),
    time_zone: z
      .string()
      .refine(isTimeZone, 'expected an IANA time zone such as Europe/Berlin')
      .optional()
      .describe('Time zone of "today" and "this week" in local intents.')
      .register(fieldMeta, {
        defaultText: "the machine's time zone",
        example: 'Europe/Berlin',
      }),
    prefer_local: z
      .boolean()
      .default(true)
      .describe(
        'Try the local intent rules before the LLM on every message; off: with an LLM configured, every message goes to it.',
      ),
    intents_file: pathField()
      .optional()
      .describe(
        'Local intent rules (sentence templates with slots). `caesar up` and `caesar brain` copy the shipped `config/intents.yaml` to the default place on first start, never over an existing file.',
      )
      .register(fieldMeta, {
        defaultText: `\`<data_dir>/${DEFAULT_INTENTS_FILE_NAME}\``,
        example: './config/intents.yaml',
      }),
    trusted_workers: listField(
      z
        .string()
        .refine(
          isTrustedWorker,
          'expected `<tool>=<NKEY public key>`, the key of an identity that serves the tool',
        ),
    )
      .prefault([])
      .describe(
        "Reply keys per tool (ADR 0060): `<tool>=<public key>` entries, the NKEY identities that serve each tool (several for one tool when its workers run under several). A listed tool's replies count only when signed by one of its keys; an unlisted tool's, when signed by the key its instance declared on its own discovery subject. `caesar up` lists the identity it minted for each of its tools.",
      )
      .register(fieldMeta, { example: '[home_assistant=UKITCHEN…]' }),
    conversations_file: pathField()
      .optional()
      .describe('SQLite file of the server-side conversations.')
      .register(fieldMeta, {
        defaultText: '`<data_dir>/conversations.db`',
        example: './var/conversations.db',
      }),
  })
  .prefault({})
  .describe('The brain: agent loop, tool calls, confirmations and conversations.');

/** LLM providers; `none` keeps the brain to its local intent rules. */
const LLM_PROVIDERS = ['none', 'openai', 'anthropic', 'ollama'] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];
/** The providers a model can come from (`none` is the absence of one). */
const MODEL_PROVIDERS = ['openai', 'anthropic', 'ollama'] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

/** Where each provider answers when its `base_url` is not set. */
export const DEFAULT_LLM_BASE_URLS: Readonly<Record<ModelProvider, string>> = Object.freeze({
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  ollama: 'http://localhost:11434',
});

const TAG = z.string().regex(/^[a-z0-9_-]{1,32}$/, 'expected a tag: a-z, 0-9, _ or -');

/** One provider's endpoint; unset keys fall back to the `llm` section's. */
function providerSection(name: ModelProvider, what: string) {
  return z
    .strictObject({
      base_url: httpUrlField()
        .describe(
          name === 'openai'
            ? 'Chat completions endpoint base, with `/v1`: also Ollama (`http://host:11434/v1`), llama.cpp server, vLLM or LM Studio.'
            : `Base URL of ${what}.`,
        )
        .default(DEFAULT_LLM_BASE_URLS[name]),
      api_key: secretField(
        'key',
        `API key for ${what}. Never printed; prefer the \`_FILE\` env var.`,
      ),
      model: z
        .string()
        .min(1, 'expected a model name')
        .optional()
        .describe(`Model to ask at ${what}; for the primary provider, \`llm.model\` also sets it.`),
      timeout: durationField().optional().describe('Overrides `llm.timeout` for this provider.'),
      max_tokens: z
        .number()
        .int()
        .min(1)
        .max(200_000)
        .optional()
        .describe('Overrides `llm.max_tokens` for this provider.'),
      temperature: numberField(0, 2)
        .optional()
        .describe('Overrides `llm.temperature` for this provider.'),
    })
    .prefault({})
    .describe(`${what}: endpoint, key and model.`);
}

const LlmSchema = z
  .strictObject({
    provider: z
      .enum(LLM_PROVIDERS)
      .default('none')
      .describe(
        'LLM planner for messages no local intent matches: `openai` (chat completions, also any OpenAI-compatible server through `llm.openai.base_url`), `anthropic`, `ollama`; `none` answers offline.',
      ),
    model: z
      .string()
      .min(1, 'expected a model name')
      .optional()
      .describe("The primary provider's model (its own `model` key wins).")
      .register(fieldMeta, { example: 'llama3.1:8b' }),
    fallback: listField(z.enum(MODEL_PROVIDERS))
      .prefault([])
      .describe(
        'Providers to try, in order, when the primary cannot answer (after its retries); each needs its own `model`.',
      ),
    mode: z
      .enum(['react', 'plan_first'])
      .default('react')
      .describe(
        'How a model turn runs: `react` asks for calls round after round as the model reads their results; `plan_first` asks for the whole plan before any result is read, runs it, then asks for the reply with no tools, so results fill values but cannot add calls (docs/llm.md, "Plan first").',
      ),
    system_prompt: z
      .string()
      .min(1)
      .max(20_000)
      .optional()
      .describe(
        "Replaces the built-in system prompt (docs/llm.md shows it); the tools' cards are always added.",
      ),
    max_tokens: z
      .number()
      .int()
      .min(1)
      .max(200_000)
      .default(1024)
      .describe('Most tokens the model may write per round.'),
    temperature: numberField(0, 2)
      .optional()
      .describe("Sampling temperature; unset: the provider's default.")
      .register(fieldMeta, { example: '0.2' }),
    timeout: durationField()
      .prefault('60s')
      .describe('Deadline of one request to a model (a streamed answer included).'),
    retries: z
      .number()
      .int()
      .min(0)
      .max(10)
      .default(2)
      .describe(
        'Retries of a request that failed with 429, 5xx or a timeout, with backoff and jitter (a `Retry-After` is honoured), before the next provider is tried.',
      ),
    max_calls_per_round: z
      .number()
      .int()
      .min(1)
      .max(64)
      .default(8)
      .describe(
        'Tool calls that run per planning round; the model is told which of the rest did not run, and a name it was not offered is refused before the policy sees it.',
      ),
    max_calls_per_turn: z
      .number()
      .int()
      .min(1)
      .max(256)
      .default(24)
      .describe('Tool calls that run per chat turn, over all its rounds.'),
    include_tags: listField(TAG)
      .prefault([])
      .describe(
        'Offer the model only tools that carry every one of these tags (empty: every tool; ' +
          '`tool` is on every tool). `[tool, home]`: the home tools only (ADR 0088).',
      ),
    exclude_tags: listField(TAG)
      .prefault([])
      .describe('Never offer the model tools with any of these tags (wins over include_tags).'),
    openai: providerSection('openai', 'OpenAI or an OpenAI-compatible server'),
    anthropic: providerSection('anthropic', "Anthropic's Messages API"),
    ollama: providerSection('ollama', 'an Ollama server (its OpenAI-compatible endpoint)'),
  })
  .superRefine((llm, ctx) => {
    for (const [i, name] of llm.fallback.entries()) {
      if (name === llm.provider) {
        ctx.addIssue({
          code: 'custom',
          path: ['fallback', i],
          message: `'${name}' is already the primary provider`,
        });
      }
    }
  })
  .prefault({})
  .describe('The LLM planner.');

/** Home Assistant: the one definition is `./ha-section.ts`, which the client library reads too. */
const HaSchema = HaSectionSchema.prefault({}).describe(
  'Home Assistant, for the `home_assistant` tool (and the `call_service` and `ha_entities` tools it replaces, ADR 0093).',
);

/** One tool's settings; `web_search:` with nothing under it counts as not set. */
const ToolSectionSchema = z
  .record(z.string(), z.unknown(), { error: 'expected a map of settings for the tool' })
  .prefault({});

const ToolSectionNamesSchema = z.record(ToolNameSchema, z.unknown());

/** The key under `tools` that holds the operator's limits, not a tool's section. */
export const TOOL_LIMITS_KEY = 'limits';

/** What the operator lets a tool ask of a host (ADR 0091): beyond it, a call asks first. */
const ToolLimitsSchema = z
  .strictObject({
    max_vcpus: z
      .number()
      .int()
      .min(1)
      .max(65_536)
      .optional()
      .describe(
        "Most vCPUs a tool's spec may ask for (`resource_requirements.min_vcpus`); a tool that asks more has a preflight warning, and each of its calls waits for confirmation.",
      )
      .register(fieldMeta, { example: '8' }),
    max_memory_gb: z
      .number()
      .positive()
      .max(1_048_576)
      .optional()
      .describe(
        "Most memory, GB, a tool's spec may ask for (`min_memory_gb`, or `memory_mb` / 1024); beyond it the preflight warns and calls wait for confirmation.",
      )
      .register(fieldMeta, { kind: 'number', example: '16' }),
    max_wall_clock: durationField(1)
      .optional()
      .describe(
        "Longest typical call a tool's spec may declare (`expected_wall_clock_ms`); beyond it the preflight warns and calls wait for confirmation. A job tool (ADR 0098) whose `timeout_ms` is longer is refused at submission.",
      )
      .register(fieldMeta, { example: '2m' }),
    max_concurrent_jobs_per_tool: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .optional()
      .describe(
        'Most jobs of one tool queued or running at once (ADR 0098); one more is refused at submission (`job_limit_reached`).',
      )
      .register(fieldMeta, { example: '4' }),
    max_concurrent_jobs: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .describe(
        'Most jobs queued or running at once over every tool (ADR 0098); one more is refused at submission (`job_limit_reached`).',
      )
      .register(fieldMeta, { example: '16' }),
    allow_gpu: z
      .boolean()
      .default(true)
      .describe(
        'Whether a tool may require a GPU (`gpu.required: true`); when false, such a tool has a preflight warning and its calls wait for confirmation.',
      ),
  })
  .prefault({})
  .describe(
    "Operator limits on what a tool may ask of a host (ADR 0091). The brain compares each tool's resource requirements with them and adds a preflight warning per limit exceeded; a call whose preflight warns waits for confirmation. `limits` is therefore no tool's section.",
  );

const ToolsSchema = z
  .object({ [TOOL_LIMITS_KEY]: ToolLimitsSchema })
  .catchall(ToolSectionSchema)
  .superRefine((tools, ctx) => {
    // every other key names a tool: checked as the record of tool sections checks its keys
    const { [TOOL_LIMITS_KEY]: _limits, ...sections } = tools;
    const named = ToolSectionNamesSchema.safeParse(sections);
    for (const issue of named.error?.issues ?? []) ctx.addIssue({ ...issue });
  })
  .prefault({})
  .describe(
    "Per-tool settings, keyed by tool name. Each section goes to its tool as written (snake_case keys) and is checked by that tool's own schema when its worker starts. Values from env vars stay strings. `limits` holds the operator's limits instead.",
  )
  .register(fieldMeta, { example: 'web_search:\n  searxng_url: http://127.0.0.1:8080' });

/**
 * The configuration schema: what `caesar.yaml` may hold (snake_case keys), with defaults.
 * Parsing applies the defaults and turns durations into milliseconds and the server list
 * into `string[]`; `normaliseConfig` then makes the camelCase, absolute-path result.
 * Every key carries `.describe()`: docs/configuration.md and config/caesar.example.yaml
 * are rendered from this schema (`src/config/reference.ts`).
 */
export const ConfigSchema = z
  .strictObject({
    data_dir: pathField()
      .default('./var')
      .describe('Directory for runtime state, such as the audit log.'),
    log: LogSchema,
    bus: BusSchema,
    worker: WorkerSchema,
    watchdog: WatchdogSchema,
    embedded: EmbeddedSchema,
    policy: PolicySchema,
    audit: AuditSchema,
    api: ApiSchema,
    brain: BrainSchema,
    llm: LlmSchema,
    ha: HaSchema,
    tools: ToolsSchema,
  })
  .superRefine((config, ctx) => {
    if (config.tools.ha === undefined) return;
    ctx.addIssue({
      code: 'custom',
      path: ['tools', 'ha'],
      message: 'Home Assistant settings live in the top-level `ha:` section (CAESAR_HA__*)',
    });
  })
  .describe('CAESAR configuration.');

/** The loose input: what `caesar.yaml`, env and overrides may hold (snake_case). */
export type RawConfig = z.input<typeof ConfigSchema>;

/** Defaults applied, durations in ms, servers split; not yet normalised. */
export type ParsedConfig = z.output<typeof ConfigSchema>;
