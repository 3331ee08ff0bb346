import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { connectBus, startNatsServer, type NatsServer } from '../../bus/index.js';
import { describePreflight, PreflightCache } from '../../brain/daemon/index.js';
import { shippedToolNames } from '../../../workers/index.js';
import {
  readRuntimeFile,
  removeRuntimeFile,
  writeRuntimeFile,
  type RuntimeInfoInput,
} from '../../config/index.js';
import { loadCliConfig } from '../load-config.js';
import { NatsKeeper } from '../nats-keeper.js';
import { Supervisor } from '../supervisor.js';
import { EMBEDDED_BRAIN_INBOX, mintEmbeddedAuth } from '../embedded-auth.js';

interface UpFlags {
  config?: string;
  dataDir?: string;
  natsPort?: string;
  apiPort?: string;
  logLevel?: string;
  tools?: string;
}

const MAIN = fileURLToPath(new URL('../main.js', import.meta.url));
const BRAIN = 'brain';

export function register(program: Command): void {
  program
    .command('up')
    .description(
      'start the embedded stack: nats-server on loopback, the brain and every shipped worker',
    )
    .option('--config <file>', 'caesar.yaml to read')
    .option('--data-dir <dir>', 'where runtime state lives (default ./var)')
    .option('--nats-port <port>', 'client port for the embedded nats-server (0 = any free port)')
    .option('--api-port <port>', "port of the brain's HTTP API (default 8420; 0 = any free port)")
    .option(
      '--tools <names>',
      `comma-separated tools to run (default: ${shippedToolNames().join(',')})`,
    )
    .option('--log-level <level>', 'log level of the brain and the workers (default warn)')
    .action(async (flags: UpFlags) => {
      process.exitCode = await up(flags);
    });
}

async function up(flags: UpFlags): Promise<number> {
  const overrides: Record<string, unknown> = {};
  if (flags.dataDir) overrides.data_dir = flags.dataDir;
  if (flags.natsPort !== undefined) overrides.embedded = { nats_port: Number(flags.natsPort) };
  if (flags.apiPort !== undefined) overrides.api = { port: Number(flags.apiPort) };
  const config = await loadCliConfig({ config: flags.config, raw: overrides });
  const tools = flags.tools ? flags.tools.split(',').map((t) => t.trim()) : shippedToolNames();
  const unknown = tools.filter((t) => !shippedToolNames().includes(t));
  if (unknown.length > 0) throw new Error(`unknown tool(s): ${unknown.join(', ')}`);

  // every file the stack writes (audit log, conversations, tokens) is for its owner only
  process.umask(0o077);
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const running = await readRuntimeFile(config.dataDir);
  if (running) {
    throw new Error(
      `another caesar up (pid ${running.pid}) is running with data dir ${config.dataDir}: ` +
        'stop it first, or pass another --data-dir',
    );
  }
  const say = (line: string) => console.log(line);
  // an operator's own server config manages its own auth; otherwise mint one identity per part
  const auth =
    config.embedded.natsConfig === undefined
      ? await mintEmbeddedAuth(config.dataDir, tools)
      : undefined;
  const natsConfigFile = config.embedded.natsConfig ?? auth?.serverConfig;
  let nats: NatsServer;
  try {
    nats = await startNatsServer({
      host: config.embedded.natsHost,
      port: config.embedded.natsPort,
      configFile: natsConfigFile,
    });
  } catch (err) {
    if (portTaken(err)) {
      throw new Error(
        `port ${config.embedded.natsPort} is taken (another nats-server or caesar up?). ` +
          'Stop it, or run with --nats-port 0 for any free port.',
        { cause: err },
      );
    }
    throw err;
  }
  say(
    `nats-server   ${nats.url}  (pid ${natsPid(nats)}, ${auth ? 'loopback only, one NKEY identity per part' : config.embedded.natsConfig})`,
  );
  // a dead nats-server comes back on the same port with the same config: the brain and the
  // workers reconnect by themselves, with the identities they hold
  const port = nats.port;
  const keeper = new NatsKeeper(nats, {
    restart: () =>
      startNatsServer({ host: config.embedded.natsHost, port, configFile: natsConfigFile }),
    onExit: (exit, delayMs) =>
      say(
        `nats-server   exited (${exit.signal ?? `code ${exit.code}`}); restarting on port ${port} in ${delayMs} ms`,
      ),
    onRestarted: (server) =>
      say(
        `nats-server   ${server.url}  (pid ${natsPid(server)}) restarted; the brain and the workers reconnect by themselves`,
      ),
    onRestartFailed: (err, delayMs) =>
      say(
        portTaken(err)
          ? `nats-server   cannot restart: port ${port} is taken by another process; retrying in ${delayMs} ms (stop whatever listens on ${port}, or stop caesar up and start it with another --nats-port)`
          : `nats-server   cannot restart: ${firstLine(err.message)}; retrying in ${delayMs} ms`,
      ),
  });

  const ready = new Map<string, (msg: Record<string, unknown>) => void>();
  const waitFor = (name: string) => new Promise<Record<string, unknown>>((r) => ready.set(name, r));
  const brainReady = waitFor(BRAIN);
  let failStartup: (err: Error) => void = () => undefined;
  const fatal = new Promise<never>((_, reject) => (failStartup = reject));
  fatal.catch(() => undefined);
  const allReady = Promise.race([Promise.all([brainReady, ...tools.map(waitFor)]), fatal]);
  let runtime: RuntimeInfoInput | undefined;
  const supervisor = new Supervisor({
    onReady: (name, msg) => {
      const pid = supervisor.pids()[name];
      if (name === BRAIN) {
        say(`${name.padEnd(13)} ${String(msg.url)}  (pid ${pid}, audit ${String(msg.audit_db)})`);
        // a restarted brain on port 0 has a new URL: keep runtime.json pointing at it
        if (runtime) {
          runtime = { ...runtime, api_url: String(msg.url) };
          void writeRuntimeFile(config.dataDir, runtime);
        }
      } else {
        const ids =
          (msg.instances as { id: string }[] | undefined)?.map((i) => i.id).join(',') ?? '';
        say(`${name.padEnd(13)} serving  (pid ${pid}, instance ${ids})`);
      }
      ready.get(name)?.(msg);
    },
    onFatal: (name, message) => {
      // before the stack is ready a failed start is a setup problem: stop and say it
      if (!runtime) failStartup(new Error(`${name} could not start: ${message}`));
      else say(`${name.padEnd(13)} failed: ${message}`);
    },
    onRestart: (name, code, signal, delayMs) =>
      say(`${name.padEnd(13)} exited (${signal ?? `code ${code}`}); restarting in ${delayMs} ms`),
    onOutput: (name, line) => console.error(`[${name}] ${line}`),
  });
  const common = ['--nats-url', nats.url, '--data-dir', config.dataDir];
  if (flags.config) common.push('--config', flags.config);
  const brainArgs = [MAIN, 'brain', ...common, '--log-level', flags.logLevel ?? 'warn'];
  if (flags.apiPort !== undefined) brainArgs.push('--api-port', flags.apiPort);
  supervisor.start({
    name: BRAIN,
    command: process.execPath,
    args: brainArgs,
    env: auth ? envWithIdentity(auth.brainSeedFile, EMBEDDED_BRAIN_INBOX) : process.env,
  });
  for (const tool of tools) {
    supervisor.start({
      name: tool,
      command: process.execPath,
      args: [
        MAIN,
        'legion',
        'serve-tool',
        tool,
        ...common,
        '--log-level',
        flags.logLevel ?? 'warn',
      ],
      env: auth ? envWithIdentity(auth.toolSeedFiles.get(tool) as string) : process.env,
    });
  }

  const shutdown = once(async () => {
    say('stopping…');
    await supervisor.stop();
    await keeper.stop();
    await removeRuntimeFile(config.dataDir);
    say('stopped');
  });
  const stopped = new Promise<void>((resolve) => {
    const onSignal = () => {
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      void shutdown().then(resolve);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });

  try {
    const [brain] = await withTimeout(
      allReady,
      60_000,
      'the stack did not become ready within 60 s',
    );
    for (const p of await preflightAll(nats.url, auth?.operatorSeedFile, tools)) {
      say(`preflight     ${p}`);
    }
    runtime = {
      pid: process.pid,
      started_at: new Date().toISOString(),
      data_dir: config.dataDir,
      nats_url: nats.url,
      ...(auth ? { nats_seed_file: auth.operatorSeedFile } : {}),
      api_url: String(brain.url),
      token_file: String(brain.tokens_file),
      token_name: 'operator',
      audit_db: String(brain.audit_db),
      policy_file: String(brain.policy_file),
      tools,
    };
    await writeRuntimeFile(config.dataDir, runtime);
    if (brain.created_tokens_file === true) {
      say(`api token     created ${String(brain.tokens_file)} (mode 0600; token name 'operator')`);
    }
  } catch (err) {
    await shutdown();
    throw err;
  }
  say(
    `ready: CAESAR is up at ${runtime.api_url} (NATS ${nats.url}) with ${tools.length} tool(s): ${tools.join(', ')}. Try: caesar chat "what is 17 * 23". Ctrl-C stops everything.`,
  );
  await stopped;
  return 0;
}

function portTaken(err: unknown): boolean {
  return /address already in use/i.test((err as Error).message);
}

/** The nats-server's own pid (what `ps` and `kill` see), else its guard's. */
function natsPid(server: NatsServer): number {
  return server.serverPid ?? server.pid;
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
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

async function preflightAll(
  url: string,
  seedFile: string | undefined,
  tools: string[],
): Promise<string[]> {
  const nc = await connectBus({
    servers: url,
    name: 'caesar-up',
    ...(seedFile === undefined ? {} : { auth: { kind: 'nkey', seedFile } }),
  });
  try {
    const cache = new PreflightCache(nc, { timeoutMs: 5000 });
    return await Promise.all(
      tools.map(async (tool) => describePreflight(tool, await cache.get(tool))),
    );
  } finally {
    await nc.close();
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let p: Promise<void> | undefined;
  return () => (p ??= fn());
}

async function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
