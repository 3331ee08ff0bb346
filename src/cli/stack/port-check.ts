import { createServer } from 'node:net';
import { basename, dirname, isAbsolute, relative } from 'node:path';
import { lookupRunningStack, type CaesarConfig } from '../../config/index.js';
import { errorClass } from '../../errors/index.js';
import { portHolder } from '../../process/index.js';

type StackErrorCode = 'stack_port_taken' | 'stack_already_running';

/**
 * `caesar up` cannot start here: its data dir has a live stack (`stack_already_running`), or
 * a port it would listen on is taken (`stack_port_taken`). Thrown before anything starts;
 * the message names the command for a second stack beside the first (ADR 0071).
 */
export const StackStartError = errorClass<StackErrorCode>([
  'stack_port_taken',
  'stack_already_running',
]);
export type StackStartError = InstanceType<typeof StackStartError>;

/** A port `caesar up` would listen on. */
interface WantedPort {
  part: 'NATS' | 'API';
  host: string;
  port: number;
  /** The flag that moves it. */
  flag: '--nats-port' | '--api-port';
}

/** How far above a taken port the suggestion looks for a free one. */
const SUGGEST_SPAN = 20;

/**
 * Refuses a data dir a live `caesar up` runs in, saying to use it, and the command for a
 * second stack beside it.
 * @throws {StackStartError} `stack_already_running`
 */
export async function refuseRunningDataDir(
  config: CaesarConfig,
  cluster: number | undefined,
): Promise<void> {
  const { file, info: running } = await lookupRunningStack(config.dataDir);
  if (running === undefined) return;
  const command = await secondStackCommand(config, cluster, true);
  throw new StackStartError('stack_already_running', {
    dataDir: config.dataDir,
    pid: running.pid,
    apiUrl: running.api_url,
    natsUrl: running.nats_url,
    file,
    command,
  });
}

/**
 * Checks, before anything starts, that every port `caesar up` would listen on (NATS, each
 * server's with `--cluster`, and the API's) is free; port 0 (any free one) always is.
 * @throws {StackStartError} `stack_port_taken`, naming the port, what holds it when `/proc`
 *   says (a CAESAR stack: its data dir and API URL), and the command for a second stack.
 */
export async function checkStackPorts(
  config: CaesarConfig,
  cluster: number | undefined,
): Promise<void> {
  for (const wanted of wantedPorts(config, cluster)) {
    if (await isFree(wanted.host, wanted.port)) continue;
    const holder = await describeHolder(wanted.port);
    const command = await secondStackCommand(config, cluster, false);
    const use =
      holder.dataDir === undefined
        ? 'Stop what holds the port'
        : `Use that stack (run commands where it started, or pass --data-dir ${holder.dataDir}), stop it`;
    throw new StackStartError('stack_port_taken', {
      part: wanted.part,
      port: wanted.port,
      host: wanted.host,
      holder: holder.text === '' ? '' : ` by ${holder.text}`,
      next:
        `${use}, or start a second stack beside it: \`${command}\`` +
        ` (${wanted.flag} 0 takes any free port; clients find it through runtime.json)`,
    });
  }
}

function wantedPorts(config: CaesarConfig, cluster: number | undefined): WantedPort[] {
  const out: WantedPort[] = [];
  const { natsHost, natsPort } = config.embedded;
  if (natsPort !== 0) {
    for (let i = 0; i < (cluster ?? 1); i++) {
      out.push({ part: 'NATS', host: natsHost, port: natsPort + i, flag: '--nats-port' });
    }
  }
  if (config.api.port !== 0) {
    out.push({ part: 'API', host: config.api.host, port: config.api.port, flag: '--api-port' });
  }
  return out;
}

/**
 * Whether `host:port` is free now: false only when it is in use; any other refusal (a
 * privileged port, an address this host lacks) is left to the server, which says it.
 */
function isFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err.code !== 'EADDRINUSE'));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Who holds `port`: a CAESAR stack ("the CAESAR stack in /srv/var (caesar up pid 12, API
 * http://127.0.0.1:8420, …)", with its data dir), another process ("nats-server (pid 40)"),
 * or '' when `/proc` does not say.
 */
async function describeHolder(port: number): Promise<{ text: string; dataDir?: string }> {
  const holder = await portHolder(port);
  if (holder === undefined) return { text: '' };
  const dataDir = dataDirOf(holder.argv);
  const stack =
    dataDir === undefined ? undefined : await lookupRunningStack(dataDir).catch(() => undefined);
  const info = stack?.info;
  if (stack !== undefined && info !== undefined) {
    return {
      text: `the CAESAR stack in ${info.data_dir} (caesar up pid ${info.pid}, API ${info.api_url}, ${stack.file})`,
      dataDir: info.data_dir,
    };
  }
  return { text: `${basename(holder.argv[0] ?? 'a process')} (pid ${holder.pid})` };
}

/** The data dir on a CAESAR part's command line: `--data-dir <dir>`, or nats-server's `-c <dir>/….conf`. */
function dataDirOf(argv: readonly string[]): string | undefined {
  const flag = argv.indexOf('--data-dir');
  if (flag >= 0 && argv[flag + 1] !== undefined) return argv[flag + 1];
  const conf = argv.indexOf('-c');
  const file = conf >= 0 ? argv[conf + 1] : undefined;
  return file !== undefined && basename(file) === 'nats-server.conf' ? dirname(file) : undefined;
}

/**
 * `caesar up [--data-dir <dir>2] --nats-port <p> --api-port <q>`: the ports the first free
 * ones above the configured (0 where those are 0), a new data dir when `newDataDir`.
 */
async function secondStackCommand(
  config: CaesarConfig,
  cluster: number | undefined,
  newDataDir: boolean,
): Promise<string> {
  const parts = ['caesar up'];
  if (newDataDir) parts.push(`--data-dir ${shown(`${config.dataDir}2`)}`);
  const { natsHost, natsPort } = config.embedded;
  const size = cluster ?? 1;
  parts.push(`--nats-port ${await freeAbove(natsHost, natsPort, size)}`);
  parts.push(`--api-port ${await freeAbove(config.api.host, config.api.port, 1)}`);
  if (cluster !== undefined) parts.push(`--cluster ${cluster}`);
  return parts.join(' ');
}

/** The first port above `port` from which `size` ports are free; 0 when none is near, or `port` is 0. */
async function freeAbove(host: string, port: number, size: number): Promise<number> {
  if (port === 0) return 0;
  for (let p = port + size; p + size - 1 <= Math.min(port + SUGGEST_SPAN, 65535); p++) {
    let all = true;
    for (let i = 0; i < size && all; i++) all = await isFree(host, p + i);
    if (all) return p;
  }
  return 0;
}

/** A path as a reader types it: `./var2` under the working directory, else absolute. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : `./${rel}`;
}
