import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultToolNames } from '../../../workers/index.js';
import { readNkeySeed } from '../../bus/index.js';
import { newNkeyUser } from '../../protocol/nkey-ed25519.js';
import { EXIT_USAGE } from '../program/exit.js';
import { writeSeed } from './legion/identity.run.js';
import { natsConfigText } from './nats-config.run.js';
import { terminal } from '../program/terminal.js';

/** `caesar nats compose-secrets`'s flags. */
export interface ComposeSecretsFlags {
  /** The directory of docker-compose.yml. @default '.' */
  dir: string;
}

// What docker-compose.yml reads, relative to its directory (ADR 0053);
// test/integration/cli/commands/compose-auth.test.ts checks that the two agree.
const SECRETS = 'secrets';
const SERVER_CONFIG = `${SECRETS}/nats-server.conf`;
const ENV_FILE = '.env';
const BRAIN_KEY_VAR = 'CAESAR_BRAIN_KEY';
/** `<tool>=<key>` of every worker part: the reply keys the brain pins (ADR 0060). */
const WORKER_KEYS_VAR = 'CAESAR_WORKER_KEYS';
const LISTEN = '0.0.0.0:4222';
/** The monitoring port the nats service's healthcheck probes, loopback in its container. */
const MONITOR = '127.0.0.1:8222';

interface Part {
  /** The seed is `secrets/<name>.nk`, the Docker secret `<name>_nkey`. */
  name: string;
  role: 'brain' | 'operator' | 'worker';
}

/** A part's seed file, relative to the compose directory. */
const seedOf = (part: Part) => `${SECRETS}/${part.name}.nk`;

/** Every part compose runs: the brain, the operator (for `docker compose run`), each worker. */
function composeParts(): Part[] {
  return [
    { name: 'brain', role: 'brain' },
    { name: 'operator', role: 'operator' },
    ...defaultToolNames().map((tool): Part => ({ name: tool, role: 'worker' })),
  ];
}

/** A problem that stops the command before it writes anything. */
class ComposeSecretsError extends Error {}

/**
 * `caesar nats compose-secrets`: everything docker-compose.yml's NKEY auth needs, once. Mints
 * a seed (mode 0600) for each part that has none, never touching an existing one; writes the
 * nats-server config for all of them (public keys only, `caesar nats config`'s renderer plus
 * the healthcheck's monitoring port); and sets `CAESAR_BRAIN_KEY` (the key workers trust for
 * grants), `CAESAR_WORKER_KEYS` (each tool's key, which the brain pins for its replies) and
 * `CAESAR_UID`/`CAESAR_GID` (who the containers run as, so they can read the
 * seeds this user owns) in `.env`, which compose reads. Run again, it keeps every seed and
 * mints only missing ones: deleting a seed and running it again rotates that identity.
 */
export async function writeComposeSecrets(flags: ComposeSecretsFlags): Promise<number> {
  try {
    const owner = ownerOf();
    const env = await readEnvFile(join(flags.dir, ENV_FILE));
    checkOwner(owner, env);
    await mkdir(join(flags.dir, SECRETS), { recursive: true, mode: 0o700 });
    const parts = composeParts();
    const keys = new Map<string, string>();
    for (const part of parts) keys.set(part.name, await ensureSeed(flags.dir, part, owner));
    await writeFile(join(flags.dir, SERVER_CONFIG), await serverConfig(flags.dir, parts), {
      mode: 0o644,
    });
    terminal.out(`wrote ${SERVER_CONFIG}: ${parts.length} NKEY users, public keys only`);
    const brainKey = keys.get('brain')!;
    const workerKeys = parts
      .filter((part) => part.role === 'worker')
      .map((part) => `${part.name}=${keys.get(part.name)!}`)
      .join(',');
    const settings = new Map([
      [BRAIN_KEY_VAR, brainKey],
      [WORKER_KEYS_VAR, workerKeys],
    ]);
    if (owner !== undefined) {
      if (!env.values.has('CAESAR_UID')) settings.set('CAESAR_UID', String(owner.uid));
      if (!env.values.has('CAESAR_GID')) settings.set('CAESAR_GID', String(owner.gid));
    }
    await writeEnvFile(join(flags.dir, ENV_FILE), env, settings);
    const set = [...settings].map(([k, v]) => `${k}=${v}`).join(', ');
    terminal.out(`wrote ${ENV_FILE}: ${set}`);
    terminal.out('next: docker compose up -d --build');
    return 0;
  } catch (err) {
    if (!(err instanceof ComposeSecretsError)) throw err;
    terminal.err(`caesar nats compose-secrets: ${err.message}`);
    return EXIT_USAGE;
  }
}

interface Owner {
  uid: number;
  gid: number;
}

/** Who will own the seeds; undefined where there are no uids (Windows). */
function ownerOf(): Owner | undefined {
  if (process.getuid === undefined || process.getgid === undefined) return undefined;
  const owner = { uid: process.getuid(), gid: process.getgid() };
  if (owner.uid === 0) {
    throw new ComposeSecretsError(
      'running as root: the seeds (mode 0600) would be root’s, and the containers, which run ' +
        'as an unprivileged uid (CAESAR_UID), could not read them. Run it as the user who ' +
        'owns this directory, or through the image (docs/operations.md, "Containers")',
    );
  }
  return owner;
}

/** `.env` may build the image for another uid than the one that will own the seeds. */
function checkOwner(owner: Owner | undefined, env: EnvFile): void {
  const uid = env.values.get('CAESAR_UID');
  if (owner === undefined || uid === undefined || uid === String(owner.uid)) return;
  throw new ComposeSecretsError(
    `${ENV_FILE} sets CAESAR_UID=${uid}, but you are uid ${owner.uid}: the seeds would be ` +
      `yours (mode 0600) and the containers, running as uid ${uid}, could not read them. ` +
      `Run this as uid ${uid}, or change CAESAR_UID and CAESAR_GID in ${ENV_FILE}`,
  );
}

/** The part's public key: of its existing seed, or of one minted now. */
async function ensureSeed(dir: string, part: Part, owner: Owner | undefined): Promise<string> {
  const file = join(dir, seedOf(part));
  const existing = await stat(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (existing === undefined) {
    const { seed, publicKey } = newNkeyUser();
    try {
      await writeSeed(file, seed);
    } finally {
      seed.fill(0);
    }
    terminal.out(`minted ${seedOf(part)} (${part.role}) ${publicKey}`);
    return publicKey;
  }
  const { publicKey } = await readNkeySeed(file);
  if (!publicKey.startsWith('U')) {
    throw new ComposeSecretsError(`${seedOf(part)} does not hold an NKEY user seed (SU…)`);
  }
  terminal.out(`kept   ${seedOf(part)} (${part.role}) ${publicKey}`);
  if ((existing.mode & 0o077) !== 0 || (owner !== undefined && existing.uid !== owner.uid)) {
    terminal.out(
      `  warning: ${seedOf(part)} is mode ${(existing.mode & 0o777).toString(8)}, owned by ` +
        `uid ${existing.uid}; the container reads it as CAESAR_UID: chown it and chmod 600 it`,
    );
  }
  return publicKey;
}

/** `caesar nats config`'s config for the parts' seeds, plus the name and monitoring port. */
async function serverConfig(dir: string, parts: readonly Part[]): Promise<string> {
  const of = (role: Part['role']) => parts.filter((p) => p.role === role);
  const text = await natsConfigText({
    brain: of('brain').map((p) => join(dir, seedOf(p))),
    operator: of('operator').map((p) => join(dir, seedOf(p))),
    // a worker's user serves its one tool, which names it
    worker: of('worker').map((p) => `${p.name}=${join(dir, seedOf(p))}`),
    listen: LISTEN,
    clusterListen: '',
    leaf: [],
  });
  return [
    "# docker-compose.yml's nats-server, written by `caesar nats compose-secrets` from the",
    '# seeds beside it; run that again rather than editing this file.',
    text.trimEnd(),
    'server_name: "caesar-nats"',
    '# Monitoring, for the healthcheck (GET /healthz) only: loopback inside the container.',
    `http: ${JSON.stringify(MONITOR)}`,
    '',
  ].join('\n');
}

interface EnvFile {
  lines: string[];
  values: Map<string, string>;
}

/** The `NAME=value` lines of a compose `.env` file (none if it does not exist). */
async function readEnvFile(file: string): Promise<EnvFile> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  const values = new Map<string, string>();
  for (const line of lines) {
    const m = /^\s*(?:export\s+)?([A-Za-z_]\w*)\s*=\s*(.*)$/.exec(line);
    if (m) values.set(m[1]!, m[2]!.trim().replace(/^(['"])(.*)\1$/, '$2'));
  }
  return { lines, values };
}

/** Rewrites `.env` with `settings` in place of their old lines, or appended; others stay. */
async function writeEnvFile(file: string, env: EnvFile, settings: Map<string, string>) {
  const nameOf = (line: string) => /^\s*(?:export\s+)?([A-Za-z_]\w*)\s*=/.exec(line)?.[1];
  const pending = new Map(settings);
  const lines = env.lines.map((line) => {
    const name = nameOf(line) ?? '';
    if (!settings.has(name)) return line;
    pending.delete(name);
    return `${name}=${settings.get(name)}`;
  });
  lines.push(...[...pending].map(([k, v]) => `${k}=${v}`));
  await writeFile(file, `${lines.join('\n')}\n`, { mode: 0o600 });
}
