import { fileURLToPath } from 'node:url';
import { EMBEDDED_BRAIN_INBOX, type EmbeddedAuth } from './embedded-auth.js';
import type { ChildSpec } from './supervisor.js';

/** The brain's name among `caesar up`'s children; the workers are named by their tool. */
export const BRAIN = 'brain';

/** The CLI entry point every child runs (`caesar brain`, `caesar legion serve-tool`). */
export const MAIN = fileURLToPath(new URL('../main.js', import.meta.url));

/**
 * Node flags of every child. A young generation of at most 1 MB per semi-space (V8's
 * default grows to 16 MB while modules load, and an idle daemon never gives it back) saves
 * 15-20 MB per process (ADR 0048). The brain pays for it under load: about 20-30 % more CPU
 * per governed call at 32 concurrent calls, for 11 MB (docs/benchmarks.md, "Footprint: the
 * memory of caesar up"). `NODE_OPTIONS` still applies; these come after it and win.
 */
const CHILD_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];

/**
 * And of each tool worker: no optimising compiler. Its start-up compilations cost an idle
 * worker about 6 MB, while a household's few calls a minute never make its code hot; the
 * price is about 0.1 ms per call (docs/benchmarks.md), nothing beside a tool's own time.
 * The brain keeps it: it serves every call and chat turn.
 */
const WORKER_NODE_FLAGS: readonly string[] = [...CHILD_NODE_FLAGS, '--no-opt'];

/** What the children of one `caesar up` share. */
interface ChildPlan {
  natsUrl: string;
  dataDir: string;
  /** `--config` as `caesar up` was given it. */
  configFile?: string;
  /** The policy and intents files `caesar up` resolved (and seeded): the brain reads these. */
  policyFile: string;
  intentsFile: string;
  /** `--api-port` as `caesar up` was given it. */
  apiPort?: string;
  /** @default 'warn' */
  logLevel?: string;
  tools: readonly string[];
  /** The tools of `worker.modules`, each with its module (ADR 0055). @default none */
  modules?: ReadonlyMap<string, string>;
  /** The catalog's MCP servers, each served as its tool by `legion serve-mcp`. @default none */
  mcp?: ReadonlyMap<string, CatalogMcpServer>;
  /** Each part's identity, when `caesar up` minted them. */
  auth?: EmbeddedAuth;
  /** `worker.max_heap`: each worker's V8 heap ceiling, MB (ADR 0070). @default Node's */
  maxHeapMb?: number;
  /** Copies of the job streams in a clustered JetStream (ADR 0101). @default 1 */
  jetStreamReplicas?: number;
}

/** An `mcp` entry of the catalog, as `caesar up` serves it (ADR 0095). */
export interface CatalogMcpServer {
  readonly name: string;
  readonly command?: readonly string[];
  readonly url?: string;
  readonly tools?: readonly string[];
}

/** The brain, then one `legion serve-tool` (or `serve-mcp`, for an MCP server) per tool. */
export function childSpecs(plan: ChildPlan): ChildSpec[] {
  const specs = [brainSpec(plan), ...plan.tools.map((tool) => workerSpec(plan, tool))];
  // `caesar up` reads its children's log records (and shows them readable on a terminal):
  // JSON whatever caesar.yaml or the env says for a hand-run part (ADR 0076)
  return specs.map((s) => ({
    ...s,
    env: { ...(s.env ?? process.env), CAESAR_LOG__FORMAT: 'json' },
  }));
}

/**
 * glibc gives each thread that mallocs an arena of its own, up to 8 per core, and keeps
 * what they hold; the brain has a writer thread and V8's helper threads. Two arenas took an
 * idle brain's RssAnon from 38.1 to 35.6 MiB (and its RSS after 21,000 governed calls from
 * 142-196 to 160-166 MiB) with its HTTP path no slower (`npm run bench -- brain`). An
 * operator's own value wins; other C libraries ignore the variable.
 */
const BRAIN_MALLOC_ARENAS = '2';

function brainSpec(plan: ChildPlan): ChildSpec {
  const args = [...CHILD_NODE_FLAGS, MAIN, 'brain', ...commonArgs(plan)];
  args.push('--policy', plan.policyFile, '--intents', plan.intentsFile);
  if (plan.apiPort !== undefined) args.push('--api-port', plan.apiPort);
  // the tools start beside it: its first registry sweep ends once each answered
  if (plan.tools.length > 0) args.push('--expect-tools', plan.tools.join(','));
  const env = plan.auth
    ? envWithIdentity(plan.auth.brainSeedFile, EMBEDDED_BRAIN_INBOX)
    : { ...process.env };
  env.MALLOC_ARENA_MAX ??= BRAIN_MALLOC_ARENAS;
  // the cluster `caesar up --cluster` runs: the brain replicates the job streams over it
  if (plan.jetStreamReplicas !== undefined && plan.jetStreamReplicas > 1) {
    env.CAESAR_BUS__JETSTREAM_REPLICAS = String(plan.jetStreamReplicas);
  }
  // each worker signs its replies with the identity minted for it: the brain takes no other
  // key for that tool (ADR 0060)
  if (plan.auth) {
    const pinned = [...plan.auth.toolPublicKeys].map(([tool, key]) => `${tool}=${key}`);
    env.CAESAR_BRAIN__TRUSTED_WORKERS = pinned.join(',');
  }
  return { name: BRAIN, command: process.execPath, args, env };
}

function workerSpec(plan: ChildPlan, tool: string): ChildSpec {
  const heap = plan.maxHeapMb === undefined ? [] : [`--max-old-space-size=${plan.maxHeapMb}`];
  const server = plan.mcp?.get(tool);
  const command = server === undefined ? 'serve-tool' : 'serve-mcp';
  const args = [...WORKER_NODE_FLAGS, ...heap, MAIN, 'legion', command, tool, ...commonArgs(plan)];
  // a module's tool: its name picks that one tool of the module (one worker, one identity)
  const module = plan.modules?.get(tool);
  if (module !== undefined) args.push('--module', module);
  if (server !== undefined) args.push(...mcpArgs(server));
  const seed = plan.auth?.toolSeedFiles.get(tool);
  const env = seed === undefined ? undefined : envWithIdentity(seed);
  // the brain of this run signs every dispatch with the identity minted for it (ADR 0052)
  if (env !== undefined && plan.auth) env.CAESAR_WORKER__TRUSTED_BRAINS = plan.auth.brainPublicKey;
  return {
    name: tool,
    command: process.execPath,
    args,
    ...(env ? { env } : {}),
    ...(plan.maxHeapMb === undefined ? {} : { heapLimitMb: plan.maxHeapMb }),
    // a restarted worker says so in its registry entry: `legion list`, the dashboard
    restartArgs: (r) => [
      '--restart-count',
      String(r.count),
      '--restart-reason',
      r.reason,
      '--restart-at',
      r.at.toISOString(),
    ],
  };
}

/**
 * An `mcp` entry's server as `serve-mcp` takes it: `--tools`, then `--url`, or the command
 * after `--` last, so none of its words is read as a flag of ours.
 */
function mcpArgs(server: CatalogMcpServer): string[] {
  const args = server.tools === undefined ? [] : ['--tools', server.tools.join(',')];
  if (server.url !== undefined) return [...args, '--url', server.url];
  return [...args, '--', ...(server.command ?? [])];
}

function commonArgs(plan: ChildPlan): string[] {
  const args = ['--nats-url', plan.natsUrl, '--data-dir', plan.dataDir];
  if (plan.configFile) args.push('--config', plan.configFile);
  return [...args, '--log-level', plan.logLevel ?? 'warn'];
}

/**
 * A child's env: its own identity on the embedded server (and its reply inbox, when its
 * permissions allow only one), and no other NATS auth to clash with it.
 */
function envWithIdentity(seedFile: string, inboxIdentity?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ['TOKEN', 'TOKEN_FILE', 'NKEY_SEED_FILE', 'CREDS_FILE', 'INBOX_IDENTITY']) {
    delete env[`CAESAR_BUS__${key}`];
  }
  env.CAESAR_BUS__NKEY_SEED_FILE = seedFile;
  if (inboxIdentity !== undefined) env.CAESAR_BUS__INBOX_IDENTITY = inboxIdentity;
  return env;
}
