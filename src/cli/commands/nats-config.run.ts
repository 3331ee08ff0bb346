import { writeFile } from 'node:fs/promises';
import { fromPublic } from '@nats-io/nkeys';
import { readNkeySeed } from '../../bus/index.js';
import { brainPermissions, workerPermissions, type NatsPermissions } from '../../protocol/index.js';
import { EXIT_USAGE } from '../exit.js';

/** `caesar nats config`'s flags. */
export interface NatsConfigFlags {
  brain: string[];
  worker: string[];
  operator: string[];
  listen: string;
  cluster?: string;
  clusterListen: string;
  routes?: string;
  out?: string;
}

interface User {
  nkey: string;
  permissions?: NatsPermissions;
}

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
  try {
    text = await natsConfigText(flags);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`caesar nats config: ${err.message}`);
    return EXIT_USAGE;
  }
  if (flags.out === undefined) {
    process.stdout.write(text);
    return 0;
  }
  await writeFile(flags.out, text, { mode: 0o600 });
  console.log(`wrote ${flags.out}; check it with: nats-server -t -c ${flags.out}`);
  return 0;
}

/** The config `caesar nats config` writes for these flags (a flag that is not usable throws). */
export async function natsConfigText(flags: NatsConfigFlags): Promise<string> {
  return render(await usersOf(flags), flags);
}

async function usersOf(flags: NatsConfigFlags): Promise<User[]> {
  const users: User[] = [];
  for (const key of flags.brain) {
    const nkey = await publicKeyOf(key, '--brain');
    users.push({ nkey, permissions: brainPermissions(nkey) });
  }
  for (const spec of flags.worker) {
    const eq = spec.lastIndexOf('=');
    const tools = (eq < 0 ? '' : spec.slice(0, eq))
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
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
  const seen = new Set<string>();
  for (const u of users) {
    if (seen.has(u.nkey)) throw new UsageError(`the identity ${u.nkey} is given twice`);
    seen.add(u.nkey);
  }
  return users;
}

/** A user's public key (`U…`), or the public key of the seed in a file (the seed stays there). */
async function publicKeyOf(value: string, flag: string): Promise<string> {
  if (/^U[A-Z2-7]{55}$/.test(value)) {
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

function render(users: readonly User[], flags: NatsConfigFlags): string {
  const lines = [
    `# Written by \`caesar nats config\`: ${users.length} NKEY user(s), public keys only, each`,
    '# with the least-privilege permissions of its role (docs/operations.md, "Many hosts").',
    `listen: ${JSON.stringify(flags.listen)}`,
    `authorization: ${JSON.stringify({ users }, null, 2)}`,
  ];
  if (flags.cluster !== undefined) {
    const routes = (flags.routes ?? '')
      .split(',')
      .map((r) => r.trim())
      .filter((r) => r !== '');
    const cluster = { name: flags.cluster, listen: flags.clusterListen, routes };
    lines.push(`cluster: ${JSON.stringify(cluster, null, 2)}`);
  } else if (flags.routes !== undefined) {
    throw new UsageError('--routes needs --cluster <name>');
  }
  return `${lines.join('\n')}\n`;
}
