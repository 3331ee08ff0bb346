import { open, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  brainPermissions,
  workerPermissions,
  type NatsPermissions,
} from '../../../protocol/index.js';
import { newNkeyUser } from '../../../protocol/nkey-ed25519.js';
import { EXIT_USAGE } from '../../program/exit.js';
import { terminal } from '../../program/terminal.js';
import { commaList } from '../../program/flags.js';

/** `caesar legion identity new`'s flags. */
export interface IdentityFlags {
  tools?: string;
  brain?: boolean;
  operator?: boolean;
  out?: string;
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/**
 * Mints an NKEY user: writes its seed to `--out` (default `./<name>.nk`, mode 0600, never over
 * an existing file) and prints its public key and the user block for the nats-server config,
 * with the least-privilege permissions of its role (ADR 0038). A brain's inbox prefix is
 * derived from its public key (`_INBOX.<key>`), so the block needs no `--inbox-identity`.
 */
export async function newIdentity(name: string, flags: IdentityFlags): Promise<number> {
  const problem = usageProblem(name, flags);
  if (problem !== undefined) {
    terminal.err(`caesar legion identity new: ${problem}`);
    return EXIT_USAGE;
  }
  const { seed, publicKey } = newNkeyUser();
  const file = resolve(flags.out ?? `${name}.nk`);
  const role = roleOf(flags, publicKey);
  try {
    await writeSeed(file, seed);
  } finally {
    seed.fill(0);
  }
  const block = { nkey: publicKey, ...(role.permissions ? { permissions: role.permissions } : {}) };
  terminal.out(`wrote ${file} (mode 0600): the seed of ${name}; keep it on that host only`);
  terminal.out(`public key: ${publicKey}`);
  terminal.out(`nats-server user for ${role.what} (paste into authorization.users):`);
  terminal.out(`  ${JSON.stringify(block)}`);
  terminal.out(`on that host: ${role.run(file)}`);
  if (flags.brain === true) {
    // public, for the worker hosts: the key that checks the grants this brain signs (ADR 0052)
    const pub = publicKeyFile(file);
    await writeFile(pub, `${publicKey}\n`, { mode: 0o644 });
    terminal.out(
      `wrote ${pub}: its public key; workers trust this brain's grants with ` +
        `--trusted-brain ${pub} (or CAESAR_WORKER__TRUSTED_BRAINS=${publicKey})`,
    );
  }
  return 0;
}

function usageProblem(name: string, flags: IdentityFlags): string | undefined {
  if (!NAME.test(name)) {
    return `invalid name '${name}': lowercase letters, digits, '_' and '-', at most 63`;
  }
  const roles = [flags.tools !== undefined, flags.brain === true, flags.operator === true];
  if (roles.filter(Boolean).length !== 1) {
    return 'give exactly one of --tools <names>, --brain or --operator';
  }
  if (flags.tools !== undefined && commaList(flags.tools).length === 0) {
    return '--tools needs at least one tool name';
  }
  return undefined;
}

interface Role {
  what: string;
  permissions?: NatsPermissions;
  run: (seedFile: string) => string;
}

function roleOf(flags: IdentityFlags, publicKey: string): Role {
  if (flags.tools !== undefined) {
    const tools = commaList(flags.tools);
    return {
      what: `a worker serving ${tools.join(', ')}`,
      permissions: workerPermissions(tools),
      run: (seed) =>
        `caesar legion serve-tool ${tools.join(' ')} --nats-url nats://<server>:4222 --nkey-seed-file ${seed} --trusted-brain <brain>.pub`,
    };
  }
  if (flags.brain === true) {
    return {
      what: 'the brain',
      permissions: brainPermissions(publicKey),
      run: (seed) => `caesar brain --nats-url nats://<server>:4222 --nkey-seed-file ${seed}`,
    };
  }
  return {
    what: 'the operator (unrestricted: for the CLI on a trusted host only)',
    run: (seed) => `caesar legion list --nats-url nats://<server>:4222 --nkey-seed-file ${seed}`,
  };
}

/** Writes the seed for its owner only, refusing a file that exists (it may be a live identity). */
export async function writeSeed(file: string, seed: Uint8Array): Promise<void> {
  let handle;
  try {
    handle = await open(file, 'wx', 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      throw new Error(`${file} exists: it may hold a live identity; remove it or pass --out`, {
        cause: err,
      });
    }
    throw new Error(`cannot write ${file}: ${(err as Error).message}`, { cause: err });
  }
  try {
    await handle.writeFile(`${new TextDecoder().decode(seed)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** `brain.nk` -> `brain.pub`; another name gets `.pub` appended. */
function publicKeyFile(seedFile: string): string {
  return seedFile.endsWith('.nk') ? `${seedFile.slice(0, -3)}.pub` : `${seedFile}.pub`;
}
