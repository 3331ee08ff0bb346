import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brainPermissions, workerPermissions, type NatsPermissions } from '../../protocol/index.js';
import { newNkeyUser } from '../../protocol/nkey-ed25519.js';

/**
 * Identities `caesar up` mints for its embedded nats-server on every start (ADR 0038): one
 * NKEY user per part, so that other local users cannot reach the loopback port at all, and
 * so that inside the stack a worker holds only what `workerPermissions([its tool])` grants
 * (it cannot dispatch to another tool, read other tools' calls, or serve a tool it does not
 * run) and the brain only what `brainPermissions()` grants. The operator identity, used by
 * `caesar up` itself and by CLI commands through `runtime.json`, is unrestricted: it belongs
 * to the user who owns the data directory.
 *
 * Seeds are written to `<data_dir>/nkeys/<part>.nk` (directory 0700, files 0600); children
 * read theirs through `CAESAR_BUS__NKEY_SEED_FILE`. No seed appears on a command line or in an
 * environment, and the server config holds public keys only.
 */
export interface EmbeddedAuth {
  /** nats-server config file listing the users and their permissions. */
  readonly serverConfig: string;
  /** Seed file of the unrestricted operator identity (runtime.json's `nats_seed_file`). */
  readonly operatorSeedFile: string;
  /** Seed file of the brain's identity. */
  readonly brainSeedFile: string;
  /** The brain's public key: it signs dispatch grants with this identity (ADR 0052). */
  readonly brainPublicKey: string;
  /** Seed file of each tool worker's identity, by tool name. */
  readonly toolSeedFiles: ReadonlyMap<string, string>;
  /**
   * Each tool worker's public key, by tool name: the key that signs its replies, which the
   * brain of this run pins (`brain.trusted_workers`, ADR 0060).
   */
  readonly toolPublicKeys: ReadonlyMap<string, string>;
}

const EMBEDDED_SERVER_CONFIG = 'nats-server.conf';
const EMBEDDED_NKEYS_DIR = 'nkeys';
/** nats-server writes its pid here: a worker joining the stack signals it to reload (ADR 0071). */
const EMBEDDED_PID_FILE = 'nats-server.pid';
/** The brain's reply inbox is `_INBOX.brain.>`: the only inbox its permissions let it read. */
export const EMBEDDED_BRAIN_INBOX = 'brain';
/** The per-run token file of earlier versions (ADR 0036), removed when found. */
const LEGACY_TOKEN_FILE = 'nats-token';

export interface User {
  nkey: string;
  permissions?: NatsPermissions;
}

/** Where a data dir's embedded identities live: the server config, the seeds, the server's pid. */
export function embeddedAuthPaths(dataDir: string): {
  serverConfig: string;
  nkeysDir: string;
  pidFile: string;
} {
  return {
    serverConfig: join(dataDir, EMBEDDED_SERVER_CONFIG),
    nkeysDir: join(dataDir, EMBEDDED_NKEYS_DIR),
    pidFile: join(dataDir, EMBEDDED_PID_FILE),
  };
}

/** The server config `caesar up` writes: its users, and the pid file a reload is signalled through. */
export function embeddedServerConfig(users: readonly User[], pidFile: string): string {
  return [
    '# Written by `caesar up` on every start (ADR 0038): one NKEY user per part, new keys each',
    '# run; `caesar legion serve-tool --module` adds its tool to the running stack (ADR 0071).',
    '# Public keys only; the seeds are in the nkeys/ directory beside this file.',
    `pid_file: ${JSON.stringify(pidFile)}`,
    `authorization: ${JSON.stringify({ users }, null, 2)}`,
    '',
  ].join('\n');
}

/**
 * A new NKEY user: its seed written to `<dir>/<part>.nk` (0600; refused when the file
 * exists), its public key returned.
 */
export async function mintUser(
  dir: string,
  part: string,
): Promise<{ file: string; publicKey: string }> {
  const { seed, publicKey } = newNkeyUser();
  const file = join(dir, `${part}.nk`);
  try {
    await writeFile(file, `${new TextDecoder().decode(seed)}\n`, { mode: 0o600, flag: 'wx' });
  } finally {
    seed.fill(0);
  }
  return { file, publicKey };
}

export async function mintEmbeddedAuth(
  dataDir: string,
  tools: readonly string[],
): Promise<EmbeddedAuth> {
  const paths = embeddedAuthPaths(dataDir);
  const dir = paths.nkeysDir;
  // a fresh directory each run: seeds of an earlier run (or of a tool no longer run) go
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await rm(join(dataDir, LEGACY_TOKEN_FILE), { force: true });

  const users: User[] = [];
  const keys = new Map<string, string>();
  const mint = async (part: string, permissions?: NatsPermissions): Promise<string> => {
    const { file, publicKey } = await mintUser(dir, part);
    keys.set(part, publicKey);
    users.push({ nkey: publicKey, ...(permissions ? { permissions } : {}) });
    return file;
  };

  const operatorSeedFile = await mint('operator');
  const brainSeedFile = await mint('brain', brainPermissions(EMBEDDED_BRAIN_INBOX));
  const toolSeedFiles = new Map<string, string>();
  const toolPublicKeys = new Map<string, string>();
  for (const tool of tools) {
    toolSeedFiles.set(tool, await mint(`tool-${tool}`, workerPermissions([tool])));
    toolPublicKeys.set(tool, keys.get(`tool-${tool}`)!);
  }

  const serverConfig = paths.serverConfig;
  await writeFile(serverConfig, embeddedServerConfig(users, paths.pidFile), { mode: 0o600 });
  const brainPublicKey = keys.get('brain')!;
  return {
    serverConfig,
    operatorSeedFile,
    brainSeedFile,
    brainPublicKey,
    toolSeedFiles,
    toolPublicKeys,
  };
}
