import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { connectBus, startNatsServer, type NatsServer } from '../../bus/index.js';
import {
  PreflightReplySchema,
  preflightSubject,
  type PreflightReply,
} from '../../protocol/index.js';
import { shippedToolNames } from '../../../workers/index.js';
import { loadCliConfig } from '../context.js';
import { Supervisor } from '../supervisor.js';

interface UpFlags {
  config?: string;
  dataDir?: string;
  natsPort?: string;
  logLevel?: string;
  tools?: string;
}

const MAIN = fileURLToPath(new URL('../main.js', import.meta.url));

export function register(program: Command): void {
  program
    .command('up')
    .description('start the embedded stack: nats-server on loopback and every shipped worker')
    .option('--config <file>', 'caesar.yaml to read')
    .option('--data-dir <dir>', 'where runtime state lives (default ./var)')
    .option('--nats-port <port>', 'client port for the embedded nats-server (0 = any free port)')
    .option(
      '--tools <names>',
      `comma-separated tools to run (default: ${shippedToolNames().join(',')})`,
    )
    .option('--log-level <level>', 'log level for the workers (default warn)')
    .action(async (flags: UpFlags) => {
      process.exitCode = await up(flags);
    });
}

async function up(flags: UpFlags): Promise<number> {
  const overrides: Record<string, unknown> = {};
  if (flags.dataDir) overrides.data_dir = flags.dataDir;
  if (flags.natsPort !== undefined) overrides.embedded = { nats_port: Number(flags.natsPort) };
  const config = await loadCliConfig({ config: flags.config, raw: overrides });
  const tools = flags.tools ? flags.tools.split(',').map((t) => t.trim()) : shippedToolNames();
  const unknown = tools.filter((t) => !shippedToolNames().includes(t));
  if (unknown.length > 0) throw new Error(`unknown tool(s): ${unknown.join(', ')}`);

  await mkdir(config.dataDir, { recursive: true });
  const say = (line: string) => console.log(line);
  let nats: NatsServer;
  try {
    nats = await startNatsServer({
      host: config.embedded.natsHost,
      port: config.embedded.natsPort,
      configFile: config.embedded.natsConfig,
    });
  } catch (err) {
    const msg = (err as Error).message;
    if (/address already in use/i.test(msg)) {
      throw new Error(
        `port ${config.embedded.natsPort} is taken (another nats-server or caesar up?). ` +
          'Stop it, or run with --nats-port 0 for any free port.',
        { cause: err },
      );
    }
    throw err;
  }
  say(`nats-server   ${nats.url}  (pid ${nats.pid}, loopback only)`);

  const ready = new Map<string, () => void>();
  const allReady = Promise.all(tools.map((t) => new Promise<void>((r) => ready.set(t, r))));
  const supervisor = new Supervisor({
    onReady: (name, msg) => {
      const ids = (msg.instances as { id: string }[] | undefined)?.map((i) => i.id).join(',') ?? '';
      say(`${name.padEnd(13)} serving  (pid ${supervisor.pids()[name]}, instance ${ids})`);
      ready.get(name)?.();
    },
    onRestart: (name, code, signal, delayMs) =>
      say(`${name.padEnd(13)} exited (${signal ?? `code ${code}`}); restarting in ${delayMs} ms`),
    onOutput: (name, line) => console.error(`[${name}] ${line}`),
  });
  const childArgs = ['--nats-url', nats.url, '--log-level', flags.logLevel ?? 'warn'];
  if (flags.config) childArgs.push('--config', flags.config);
  for (const tool of tools) {
    supervisor.start({
      name: tool,
      command: process.execPath,
      args: [MAIN, 'legion', 'serve-tool', tool, ...childArgs],
    });
  }

  const shutdown = once(async () => {
    say('stopping…');
    await supervisor.stop();
    await nats.stop();
    await rm(join(config.dataDir, 'runtime.json'), { force: true });
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
    await withTimeout(allReady, 30_000, 'workers did not become ready within 30 s');
    for (const p of await preflightAll(nats.url, tools)) say(describePreflight(p));
    await writeFile(
      join(config.dataDir, 'runtime.json'),
      JSON.stringify(
        { v: 1, pid: process.pid, nats_url: nats.url, tools, started_at: new Date().toISOString() },
        null,
        2,
      ),
    );
  } catch (err) {
    await shutdown();
    throw err;
  }
  say(
    `ready: CAESAR is up on ${nats.url} with ${tools.length} tool(s): ${tools.join(', ')}. Ctrl-C stops everything.`,
  );
  await stopped;
  return 0;
}

async function preflightAll(
  url: string,
  tools: string[],
): Promise<(PreflightReply | { tool: string; error: string })[]> {
  const nc = await connectBus({ servers: url, name: 'caesar-up' });
  try {
    return await Promise.all(
      tools.map(async (tool) => {
        try {
          const msg = await nc.request(preflightSubject(tool), undefined, { timeout: 5000 });
          return PreflightReplySchema.parse(JSON.parse(new TextDecoder().decode(msg.data)));
        } catch (err) {
          return { tool, error: (err as Error).message };
        }
      }),
    );
  } finally {
    await nc.close();
  }
}

function describePreflight(p: PreflightReply | { tool: string; error: string }): string {
  const head = `${p.tool.padEnd(13)} preflight`;
  if ('error' in p) return `${head} failed: ${p.error}`;
  if (p.ok) return `${head} ok${p.warnings.length ? ` (${p.warnings.join('; ')})` : ''}`;
  const failed = p.checks
    .filter((c) => !c.ok)
    .map((c) => `${c.name}${c.detail ? `: ${c.detail}` : ''}`);
  return `${head} not ready: ${failed.join('; ')}`;
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
