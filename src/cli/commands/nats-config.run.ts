import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { fromPublic } from '@nats-io/nkeys';
import { readNkeySeed } from '../../bus/index.js';
import {
  brainPermissions,
  leafPermissions,
  workerPermissions,
  type NatsPermissions,
} from '../../protocol/index.js';
import { NKEY_USER_PUBLIC_KEY } from '../../protocol/nkey-shape.js';
import { EXIT_USAGE } from '../program/exit.js';
import { terminal } from '../program/terminal.js';
import { commaList } from '../program/flags.js';

/** `caesar nats config`'s flags. */
export interface NatsConfigFlags {
  brain: string[];
  worker: string[];
  operator: string[];
  listen: string;
  cluster?: string;
  clusterListen: string;
  routes?: string;
  clusterSecret?: string;
  leafnodesListen?: string;
  leaf: string[];
  leafRemote?: string;
  leafSecret?: string;
  out?: string;
}

/** An NKEY identity, or a leaf site's connection (nats-server 2.9 has no NKEYs for leafs). */
type User =
  | { nkey: string; permissions?: NatsPermissions }
  | {
      user: string;
      password: string;
      /** Only a leaf node's connection may log in as this user, never a client. */
      allowed_connection_types: ['LEAFNODE'];
      permissions: NatsPermissions;
    };

/**
 * A user and password, as a secret file holds them (`leaf-<name>:<password>` for a leaf
 * site's connection, `route-<name>:<password>` for the routes of a cluster).
 */
interface Secret {
  user: string;
  password: string;
}

type SecretKind = 'leaf' | 'route';

/** A flag's value that is not usable, with the flag named. */
class UsageError extends Error {}

/**
 * `caesar nats config`: a complete nats-server config for the identities given (public keys,
 * or seed files read only for their public key): one user per identity with its role's
 * least-privilege permissions, the client listener, and, with `--cluster`, the cluster block
 * with its routes. The same permissions `caesar legion identity new` prints.
 */
export async function writeNatsConfig(flags: NatsConfigFlags): Promise<number> {
  let text: string;
  const made: string[] = [];
  try {
    text = await natsConfigText(flags, made);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    terminal.err(`caesar nats config: ${err.message}`);
    return EXIT_USAGE;
  }
  if (flags.out === undefined) {
    terminal.write(text);
    for (const line of made) terminal.err(line);
    return 0;
  }
  await writeFile(flags.out, text, { mode: 0o600 });
  terminal.out(`wrote ${flags.out}; check it with: nats-server -t -c ${flags.out}`);
  for (const line of made) terminal.out(line);
  return 0;
}

/**
 * The config `caesar nats config` writes for these flags (a flag that is not usable throws);
 * `made` gets a line per secret file it created.
 */
export async function natsConfigText(flags: NatsConfigFlags, made: string[] = []): Promise<string> {
  const users = await usersOf(flags, made);
  const remote = await leafRemoteOf(flags);
  const routes = await routeSecretOf(flags, made);
  return render(users, flags, { leafRemote: remote, routes });
}

/** Every user; `made` gets a line per leaf secret file made. */
async function usersOf(flags: NatsConfigFlags, made: string[]): Promise<User[]> {
  const users: User[] = [];
  for (const key of flags.brain) {
    const nkey = await publicKeyOf(key, '--brain');
    users.push({ nkey, permissions: brainPermissions(nkey) });
  }
  for (const spec of flags.worker) {
    const eq = spec.lastIndexOf('=');
    const tools = commaList(eq < 0 ? '' : spec.slice(0, eq));
    if (tools.length === 0) {
      throw new UsageError(`--worker ${spec}: expected <tools>=<key>, e.g. calculator=UA…`);
    }
    users.push({
      nkey: await publicKeyOf(spec.slice(eq + 1), '--worker'),
      permissions: workerPermissions(tools),
    });
  }
  for (const key of flags.operator) users.push({ nkey: await publicKeyOf(key, '--operator') });
  if (users.length === 0) {
    throw new UsageError('give at least one identity: --brain, --worker or --operator');
  }
  users.push(...(await leafUsersOf(flags, users, made)));
  const seen = new Set<string>();
  for (const u of users) {
    const id = 'nkey' in u ? u.nkey : u.user;
    if (seen.has(id)) throw new UsageError(`the identity ${id} is given twice`);
    seen.add(id);
  }
  return users;
}

/**
 * `--leaf <tools>=<secret-file>`: a leaf site's connection to this hub, allowed what a worker
 * of those tools is allowed and no more, its replies going only to the brains' and the
 * operators' inboxes (ADR 0051). The secret file is made when missing.
 */
async function leafUsersOf(
  flags: NatsConfigFlags,
  identities: readonly User[],
  made: string[],
): Promise<User[]> {
  // the brains and the operators: who asks the site's workers, and so gets their replies
  const inboxOwners = identities.flatMap((u) =>
    'nkey' in u && (u.permissions === undefined || u.permissions.allow_responses === undefined)
      ? [u.nkey]
      : [],
  );
  if (flags.leaf.length > 0 && flags.leafnodesListen === undefined) {
    throw new UsageError(
      '--leaf needs --leafnodes-listen <host:port>, where the leaf sites connect',
    );
  }
  const users: User[] = [];
  for (const spec of flags.leaf) {
    const eq = spec.lastIndexOf('=');
    const tools = commaList(eq < 0 ? '' : spec.slice(0, eq));
    if (tools.length === 0 || eq === spec.length - 1) {
      throw new UsageError(
        `--leaf ${spec}: expected <tools>=<secret file>, e.g. calculator=pi.leaf`,
      );
    }
    const { user, password } = await secretFile(spec.slice(eq + 1), '--leaf', 'leaf', made);
    const permissions = leafPermissions(tools, inboxOwners);
    users.push({ user, password, allowed_connection_types: ['LEAFNODE'], permissions });
  }
  return users;
}

/**
 * `--leaf-remote <urls> --leaf-secret <file>`: the hub this (leaf) server connects to, one
 * URL or each server of a hub cluster, comma-separated.
 */
async function leafRemoteOf(flags: NatsConfigFlags): Promise<string[] | undefined> {
  if ((flags.leafRemote === undefined) !== (flags.leafSecret === undefined)) {
    throw new UsageError(
      '--leaf-remote and --leaf-secret go together: the hub, and the secret file its --leaf made',
    );
  }
  if (flags.leafRemote === undefined || flags.leafSecret === undefined) return undefined;
  const urls = commaList(flags.leafRemote);
  for (const u of urls) {
    if (!/^(nats-leaf|tls):\/\/[^/]+:\d+$/.test(u)) {
      throw new UsageError(
        `--leaf-remote ${u}: expected nats-leaf://host:port (or tls://host:port)`,
      );
    }
  }
  const secret = await secretFile(flags.leafSecret, '--leaf-secret', 'leaf');
  return urls.map((u) => withSecret(u, secret, '--leaf-remote'));
}

/** `--cluster-secret <file>`: the user and password every route of the cluster presents. */
async function routeSecretOf(flags: NatsConfigFlags, made: string[]): Promise<Secret | undefined> {
  if (flags.cluster === undefined) {
    if (flags.routes !== undefined) throw new UsageError('--routes needs --cluster <name>');
    if (flags.clusterSecret !== undefined) {
      throw new UsageError('--cluster-secret needs --cluster <name>');
    }
    return undefined;
  }
  if (flags.clusterSecret === undefined) {
    throw new UsageError(
      '--cluster needs --cluster-secret <file>: without it anyone who reaches the cluster port joins the cluster and sees every message (the file is made when missing; give every server the same one)',
    );
  }
  return secretFile(flags.clusterSecret, '--cluster-secret', 'route', made);
}

const SECRET_RE = /^((leaf|route)-[A-Za-z0-9_-]{1,64}):([A-Za-z0-9_-]{24,128})$/;

const MADE_FOR: Record<SecretKind, string> = {
  leaf: 'the password of the leaf user USER: copy it to the leaf host for --leaf-secret',
  route: 'the routes password (user USER): give every server of the cluster the same file',
};

/**
 * A secret file (`<kind>-<name>:<password>`, mode 0600). Given `made`, a missing file is
 * made with a new password, its user named after the file (`pi.leaf` -> `leaf-pi`), and a
 * line saying so is added to `made`.
 */
async function secretFile(
  file: string,
  flag: string,
  kind: SecretKind,
  made?: string[],
): Promise<Secret> {
  let text: string;
  try {
    text = (await readFile(file, 'utf8')).trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' || made === undefined) {
      throw new UsageError(`${flag} ${file}: cannot read the secret file (${code})`);
    }
    const name = basename(file, extname(file))
      .replace(/[^A-Za-z0-9_-]/g, '-')
      .slice(0, 64);
    const secret = { user: `${kind}-${name}`, password: randomBytes(24).toString('base64url') };
    await writeFile(file, `${secret.user}:${secret.password}\n`, { mode: 0o600, flag: 'wx' });
    made.push(`made ${file} (mode 0600), ${MADE_FOR[kind].replace('USER', secret.user)}`);
    return secret;
  }
  const m = SECRET_RE.exec(text);
  if (!m || m[2] !== kind) {
    throw new UsageError(
      `${flag} ${file}: expected one line ${kind}-<name>:<password>, as \`caesar nats config ${flag} ${file}\` makes it when the file is missing`,
    );
  }
  return { user: m[1]!, password: m[3]! };
}

/** `url` with `secret` as its user and password. */
function withSecret(url: string, secret: Secret, flag: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`${flag} ${url}: not a URL`);
  }
  if (u.username !== '' || u.password !== '') {
    throw new UsageError(`${flag} ${url}: put no user in the URL; the secret file gives it`);
  }
  u.username = secret.user;
  u.password = secret.password;
  return u.href.replace(/\/$/, '');
}

/** A user's public key (`U…`), or the public key of the seed in a file (the seed stays there). */
async function publicKeyOf(value: string, flag: string): Promise<string> {
  if (NKEY_USER_PUBLIC_KEY.test(value)) {
    try {
      fromPublic(value);
      return value;
    } catch {
      throw new UsageError(`${flag} ${value}: not a valid NKEY public key (checksum)`);
    }
  }
  let publicKey: string | undefined;
  try {
    ({ publicKey } = await readNkeySeed(value));
  } catch (err) {
    const unread = (err as Error).cause as NodeJS.ErrnoException | undefined;
    if (unread?.syscall !== undefined) {
      throw new UsageError(
        `${flag} ${value}: neither a user public key (U…) nor a readable seed file (${unread.code})`,
      );
    }
  }
  // an account or operator seed would put a non-user key in the users list
  if (publicKey === undefined || !publicKey.startsWith('U')) {
    throw new UsageError(`${flag} ${value}: the file does not hold an NKEY user seed (SU…)`);
  }
  return publicKey;
}

/** What goes beside the users: the hub this leaf server connects to, the routes' secret. */
interface Links {
  leafRemote: string[] | undefined;
  routes: Secret | undefined;
}

function render(users: readonly User[], flags: NatsConfigFlags, links: Links): string {
  const { leafRemote, routes: routeSecret } = links;
  const nkeys = users.filter((u) => 'nkey' in u).length;
  const secrets = nkeys < users.length || leafRemote !== undefined || routeSecret !== undefined;
  const lines = [
    `# Written by \`caesar nats config\`: ${nkeys} NKEY user(s), public keys only, each`,
    '# with the least-privilege permissions of its role (docs/operations.md, "Workers on other hosts").',
    ...(secrets ? ['# It holds leaf or route passwords: keep it 0600, for its owner only.'] : []),
    `listen: ${JSON.stringify(flags.listen)}`,
    `authorization: ${JSON.stringify({ users }, null, 2)}`,
  ];
  const leafnodes = {
    ...(flags.leafnodesListen === undefined ? {} : { listen: flags.leafnodesListen }),
    ...(leafRemote === undefined
      ? {}
      : { remotes: [leafRemote.length === 1 ? { url: leafRemote[0] } : { urls: leafRemote }] }),
  };
  if (Object.keys(leafnodes).length > 0) {
    lines.push(`leafnodes: ${JSON.stringify(leafnodes, null, 2)}`);
  }
  if (flags.cluster !== undefined && routeSecret !== undefined) {
    const routes = commaList(flags.routes ?? '').map((r) => withSecret(r, routeSecret, '--routes'));
    const authorization = { user: routeSecret.user, password: routeSecret.password, timeout: 2 };
    const cluster = { name: flags.cluster, listen: flags.clusterListen, authorization, routes };
    lines.push(`cluster: ${JSON.stringify(cluster, null, 2)}`);
  }
  return `${lines.join('\n')}\n`;
}
