import { mkdir } from 'node:fs/promises';
import { defaultToolNames, shippedToolNames } from '../../../workers/index.js';
import type { CaesarConfig, RuntimeInfoInput } from '../../config/index.js';
import { resolveLogFormat } from '../../log/pretty.js';
import type { BrainFileFlags } from '../program/flags.js';
import { loadCliConfig } from '../program/load-config.js';
import { seedFiles } from '../program/seed-files.js';
import { stopOnSignal } from '../program/signals.js';
import { BrainMailbox } from './brain-mailbox.js';
import { childEvents } from './child-events.js';
import { BRAIN, childSpecs, type CatalogMcpServer } from './children.js';
import { catalogModules } from './catalog.js';
import { moduleTools } from './modules.js';
import { startEmbeddedCluster, startEmbeddedNats, type EmbeddedNats } from './embedded-nats.js';
import { checkStackPorts, refuseRunningDataDir } from './port-check.js';
import type { BrainReady } from './messages.js';
import { PreflightBoard } from './preflight.js';
import { readyLine } from './ready-line.js';
import { terminalLine } from '../../text/terminal-text.js';
import { RuntimeRecord, runtimeInfo } from './runtime-record.js';
import { StartupGate } from './startup.js';
import { statusLine, type Say } from './status.js';
import { Supervisor } from './supervisor.js';

/** `caesar up`'s flags, as commander hands them over. */
export interface UpFlags extends BrainFileFlags {
  config?: string;
  dataDir?: string;
  natsPort?: string;
  apiPort?: string;
  logLevel?: string;
  tools?: string;
  cluster?: string;
}

/** Where `caesar up` writes: its status lines, and its children's log lines. */
interface UpOutput {
  say: Say;
  log: (line: string) => void;
}

/** How long the children have to say they are ready. */
const READY_TIMEOUT_MS = 60_000;

/** The parts of a started stack. */
interface Stack {
  config: CaesarConfig;
  tools: string[];
  /** The tools of `worker.modules`, each with its module. */
  modules: ReadonlyMap<string, string>;
  /** The catalog's MCP servers, each served as the tool of its name (ADR 0095). */
  mcp: ReadonlyMap<string, CatalogMcpServer>;
  nats: EmbeddedNats;
  supervisor: Supervisor;
  mailbox: BrainMailbox;
  gate: StartupGate;
  preflight: PreflightBoard;
  record: RuntimeRecord;
}

/**
 * `caesar up`: nats-server, then the brain and one worker per tool under a supervisor;
 * once all are ready, each tool's preflight (as its worker reports it), runtime.json, and
 * `ready:`. Runs until SIGINT
 * or SIGTERM, then stops everything in reverse and removes runtime.json.
 * @throws {Error} when the stack cannot start (everything started is stopped first).
 */
export async function runUp(flags: UpFlags, out: UpOutput): Promise<number> {
  const { config, tools, modules, mcp, cluster } = await prepare(flags);
  await seedFiles(config, out.say);
  // restarts of any part go to the brain for its audit log, once it can take them
  const started: { supervisor?: Supervisor } = {};
  const mailbox = new BrainMailbox((m) => started.supervisor?.send(BRAIN, m) ?? false);
  const watch = { timeoutMs: config.watchdog.timeoutMs, mailbox };
  const nats =
    cluster === undefined
      ? await startEmbeddedNats(config, tools, out.say, watch)
      : await startEmbeddedCluster(config, tools, cluster, out.say, watch);
  const stack = startChildren(flags, { config, tools, modules, mcp, nats, mailbox }, out);
  started.supervisor = stack.supervisor;
  const stop = once(() => stopStack(stack, out.say));
  // a second Ctrl-C: everything is killed at once, not left behind
  const stopped = stopOnSignal(stop, () => killStack(stack, out.say));
  let ready: { info: RuntimeInfoInput; brain: BrainReady };
  try {
    ready = await becomeReady(stack, out.say);
  } catch (err) {
    await stop();
    throw err;
  }
  const { info, brain } = ready;
  const apiUrl = info.api_url;
  const natsUrls = nats.urls;
  out.say(readyLine({ apiUrl, natsUrls, tools, tokensFile: config.api.tokensFile, brain }));
  await stopped;
  return 0;
}

/**
 * The config, the tools (shipped, then the modules' of worker.modules and the catalog), the
 * cluster's size, and our data dir.
 */
async function prepare(flags: UpFlags): Promise<{
  config: CaesarConfig;
  tools: string[];
  modules: ReadonlyMap<string, string>;
  mcp: ReadonlyMap<string, CatalogMcpServer>;
  cluster?: number;
}> {
  const raw: Record<string, unknown> = {};
  if (flags.dataDir) raw.data_dir = flags.dataDir;
  if (flags.natsPort !== undefined) raw.embedded = { nats_port: Number(flags.natsPort) };
  if (flags.apiPort !== undefined) raw.api = { port: Number(flags.apiPort) };
  const config = await loadCliConfig({
    config: flags.config,
    policy: flags.policy,
    intents: flags.intents,
    raw,
  });
  const { importTimeoutMs } = config.worker;
  // the catalog's modules join worker.modules; one named in both starts once
  const catalogued = await catalogModules(config.dataDir, flags.config, importTimeoutMs);
  const listed = [...new Set([...config.worker.modules, ...catalogued.modules])];
  const modules = await moduleTools(listed, importTimeoutMs);
  const named = [...pickTools(flags.tools), ...modules.keys()];
  const mcp = mcpServers(catalogued.mcp, named);
  const tools = [...named, ...mcp.keys()];
  const cluster = clusterSize(flags.cluster, config);
  await claimDataDir(config.dataDir);
  // both ports up front: a taken one fails here, before any worker starts (ADR 0071)
  await refuseRunningDataDir(config, cluster);
  await checkStackPorts(config, cluster);
  return { config, tools, modules, mcp, ...(cluster === undefined ? {} : { cluster }) };
}

/**
 * The catalog's MCP servers by tool name; one named like a tool already started (shipped or
 * a module's) is refused: two workers would serve one name.
 */
function mcpServers(
  servers: readonly CatalogMcpServer[],
  taken: readonly string[],
): Map<string, CatalogMcpServer> {
  const clash = servers.filter((s) => taken.includes(s.name)).map((s) => s.name);
  if (clash.length > 0) {
    throw new Error(
      `the catalog's mcp ${clash.length === 1 ? 'entry' : 'entries'} ${clash.join(', ')} ` +
        'name a tool caesar up already starts: rename the entry (caesar catalog remove, then ' +
        'caesar legion serve-mcp <other-name> --catalog)',
    );
  }
  return new Map(servers.map((s) => [s.name, s]));
}

/** The largest `--cluster`: one host's loopback cluster survives a dead server, not a dead host. */
const MAX_CLUSTER = 7;

/**
 * `--cluster <n>`: 2 to 7 servers. Core NATS keeps no quorum, so any size from 2 survives one
 * dead server for calls; jobs need a JetStream quorum (ADR 0101), so 3 is the usual choice.
 */
function clusterSize(flag: string | undefined, config: CaesarConfig): number | undefined {
  if (flag === undefined) return undefined;
  const n = Number(flag);
  if (!Number.isInteger(n) || n < 2 || n > MAX_CLUSTER) {
    throw new Error(
      `--cluster ${flag}: expected a number of servers from 2 to ${MAX_CLUSTER}, e.g. --cluster 3`,
    );
  }
  if (config.embedded.natsConfig !== undefined) {
    throw new Error(
      `--cluster runs its servers with the identities caesar up mints, but embedded.nats_config names your own server config (${config.embedded.natsConfig}): ` +
        'drop one of the two, or run your own cluster with `caesar nats config --cluster` (docs/operations.md, "A NATS cluster")',
    );
  }
  return n;
}

/** `--tools a,b`, else every shipped tool. */
function pickTools(list: string | undefined): string[] {
  const shipped = shippedToolNames();
  const tools = list ? list.split(',').map((t) => t.trim()) : defaultToolNames();
  const unknown = tools.filter((t) => !shipped.includes(t));
  if (unknown.length > 0) throw new Error(`unknown tool(s): ${unknown.join(', ')}`);
  return tools;
}

/** Makes the data dir, for its owner only. */
async function claimDataDir(dataDir: string): Promise<void> {
  // every file the stack writes (audit log, conversations, tokens) is for its owner only
  process.umask(0o077);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
}

/** Starts the brain and the workers under a supervisor wired to the start-up gate. */
function startChildren(
  flags: UpFlags,
  started: Pick<Stack, 'config' | 'tools' | 'modules' | 'mcp' | 'nats' | 'mailbox'>,
  out: UpOutput,
): Stack {
  const { config, tools, modules, mcp, nats, mailbox } = started;
  const gate = new StartupGate([BRAIN, ...tools]);
  const preflight = new PreflightBoard(config.toolLimits);
  const record = new RuntimeRecord(config.dataDir, out.say);
  const events = childEvents({
    ...out,
    // the children write JSON (childSpecs); shown readable when our stderr is a terminal
    logFormat: resolveLogFormat(config.log.format, process.stderr),
    gate,
    preflight,
    record,
    mailbox,
    pidOf: (name) => supervisor.pids()[name],
  });
  const supervisor: Supervisor = new Supervisor({
    ...events,
    heartbeatTimeoutMs: config.watchdog.timeoutMs,
    stopGraceMs: config.watchdog.stopGraceMs,
  });
  const plan = {
    natsUrl: nats.urls.join(','),
    dataDir: config.dataDir,
    configFile: flags.config,
    policyFile: config.policy.file,
    intentsFile: config.brain.intentsFile,
    apiPort: flags.apiPort,
    logLevel: flags.logLevel,
    tools,
    modules,
    mcp,
    auth: nats.auth,
    maxHeapMb: config.worker.maxHeapMb,
    jetStreamReplicas: nats.jetStreamReplicas,
  };
  for (const spec of childSpecs(plan)) supervisor.start(spec);
  return { ...started, supervisor, gate, preflight, record };
}

/**
 * Waits for every child and each tool's preflight, publishes runtime.json; the model
 * endpoint's check (the brain ran it as it started) prints with the tools' preflights.
 */
async function becomeReady(
  stack: Stack,
  say: Say,
): Promise<{ info: RuntimeInfoInput; brain: BrainReady }> {
  const { config, tools, nats, gate, preflight, record } = stack;
  const brain = await gate.wait(READY_TIMEOUT_MS);
  for (const line of await preflight.lines(tools)) say(statusLine('preflight', line));
  // a server's words (the model names it lists): escaped onto one line each
  for (const line of brain.llm?.checks ?? []) say(statusLine('preflight', terminalLine(line)));
  const info = runtimeInfo(brain, nats, config.dataDir, tools);
  gate.close();
  await record.publish(info);
  if (brain.created_tokens_file) {
    say(statusLine('api token', `created ${brain.tokens_file} (mode 0600; token name 'operator')`));
  }
  return { info, brain };
}

/**
 * Stops the children (SIGTERM, then SIGKILL after `watchdog.stop_grace` to whatever still
 * runs, in any group or session), then nats-server, then removes runtime.json; says which
 * children had to be killed.
 */
async function stopStack(stack: Stack, say: Say): Promise<void> {
  say('stopping…');
  let killed: string[];
  try {
    killed = await stack.supervisor.stop();
    await Promise.all(stack.nats.keepers.map((k) => k.stop()));
  } finally {
    await stack.record.remove();
  }
  say(killed.length === 0 ? 'stopped' : `stopped (killed: ${killed.join(', ')})`);
}

/** A second signal: SIGKILL to every child and what it started, and to nats-server. */
function killStack(stack: Stack, say: Say): void {
  stack.supervisor.killNow();
  for (const keeper of stack.nats.keepers) keeper.killNow();
  say('killed');
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let p: Promise<void> | undefined;
  return () => (p ??= fn());
}
