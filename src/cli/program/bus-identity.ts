import { BusAuthError, readNkeySeed } from '../../bus/index.js';
import type { BusAuth, RunningStack } from '../../config/index.js';
import { CaesarError } from '../../errors/index.js';
import { terminalLine } from '../../text/index.js';
import type { BusFlags } from './flags.js';

/**
 * The file name of the operator's seed beside a lone brain's own seed (`/etc/caesar/operator.nk`
 * beside `/etc/caesar/brain.nk`), where a client on the brain's host looks for it (ADR 0072).
 */
export const OPERATOR_SEED_NAME = 'operator.nk';

/**
 * A NATS refusal with the identity it was refused to appended: a permission refusal
 * (`bus_permission_denied`), so the operator knows which key's block to fix, or the server
 * refusing the identity itself (`bus_auth_refused`); any other error as it is.
 */
export async function withIdentity(
  err: unknown,
  auth: BusAuth | undefined,
  whose: string,
): Promise<unknown> {
  if (!(err instanceof CaesarError)) return err;
  if (err.code !== 'bus_permission_denied' && err.code !== 'bus_auth_refused') return err;
  return new Error(`${err.message}; ${whose}: ${await describeIdentity(auth)}`, { cause: err });
}

/** Who this process is on NATS: its NKEY's public key and seed file, creds file, or token. */
async function describeIdentity(auth: BusAuth | undefined): Promise<string> {
  switch (auth?.kind) {
    case undefined:
    case 'none':
      return 'none (no NKEY, creds or token is configured)';
    case 'token':
      return 'a token (bus.token)';
    case 'creds':
      return `the creds file ${auth.credsFile}`;
    case 'nkey': {
      try {
        const { publicKey } = await readNkeySeed(auth.seedFile);
        return `the NKEY ${publicKey} (seed file ${auth.seedFile})`;
      } catch {
        return `the NKEY in ${auth.seedFile}`;
      }
    }
  }
}

/** What a client command knows about where its identity came from. */
export interface ClientIdentityContext {
  flags: Pick<BusFlags, 'nkeySeedFile' | 'credsFile' | 'natsUrl'>;
  /** The identity the config resolved. */
  auth: BusAuth;
  /** The running stack the config loader looked for (runtime.json). */
  stack: RunningStack;
  /** The environment the config was read from. */
  env: Readonly<Record<string, string | undefined>>;
}

/** The env vars that name a NATS identity, with and without the `_FILE` form of a secret. */
const AUTH_ENV = ['CAESAR_BUS__NKEY_SEED_FILE', 'CAESAR_BUS__CREDS_FILE', 'CAESAR_BUS__TOKEN'];

/**
 * The server refused a client command's identity (`bus_auth_refused`): the refusal, then
 * which identity was sent and where it came from, or, when none was, the flag and env var to
 * use and every place looked in the lookup order (`CLIENT_IDENTITY_HELP` in flags.ts). Any other error as it is.
 */
export async function explainClientRefusal(
  err: unknown,
  ctx: ClientIdentityContext,
): Promise<unknown> {
  if (!(err instanceof BusAuthError)) return err;
  const flag = 'connect as the operator with --nkey-seed-file <its seed>';
  const env = 'or set CAESAR_BUS__NKEY_SEED_FILE';
  if (ctx.auth.kind === 'none') {
    const looked = placesLooked(ctx).map(terminalLine).join('; ');
    return new CaesarError(
      'bus_auth_refused',
      `${err.message}: it sent no identity; ${flag} (found none: ${looked}) ${env}`,
      { cause: err },
    );
  }
  const sent = terminalLine(`${await describeIdentity(ctx.auth)}, from ${identitySource(ctx)}`);
  const user =
    ctx.auth.kind === 'nkey'
      ? `, or give the server a user for this key (caesar nats config --operator ${terminalLine(ctx.auth.seedFile)})`
      : '';
  return new CaesarError(
    'bus_auth_refused',
    `${err.message}: it sent ${sent}, and the server has no user for it; ${flag} ${env}${user}`,
    { cause: err },
  );
}

/** Where the identity sent came from, in the terms of the lookup order (`CLIENT_IDENTITY_HELP` in flags.ts). */
function identitySource(ctx: ClientIdentityContext): string {
  const { flags, auth, stack, env } = ctx;
  if (flags.nkeySeedFile !== undefined) return '--nkey-seed-file';
  if (flags.credsFile !== undefined) return '--creds-file';
  const seed = auth.kind === 'nkey' ? auth.seedFile : undefined;
  if (seed !== undefined && seed === stack.operatorSeed?.file) return stack.file;
  const named = AUTH_ENV.filter((k) => env[k] !== undefined || env[`${k}_FILE`] !== undefined);
  return named.length > 0 ? named.join(', ') : 'caesar.yaml (bus.*)';
}

/** Each step of the lookup order (`CLIENT_IDENTITY_HELP` in flags.ts) a client took without finding an identity. */
function placesLooked(ctx: ClientIdentityContext): string[] {
  const { flags, stack } = ctx;
  const out = ['none given by --nkey-seed-file, CAESAR_BUS__* or caesar.yaml'];
  const seed = stack.operatorSeed;
  if (stack.info === undefined) {
    out.push(stack.missing ?? `no running stack (${stack.file})`);
  } else if (seed === undefined || !seed.offered) {
    const url = flags.natsUrl !== undefined ? '--nats-url' : 'CAESAR_BUS__URL or caesar.yaml';
    out.push(
      `${stack.file} not used: its operator seed goes with its own NATS URL only, and the URL came from ${url}`,
    );
  } else if (seed.looked.length === 0) {
    out.push(`${stack.file} names no operator seed (its brain runs without an NKEY seed file)`);
  } else {
    out.push(...seed.looked.map((f) => `no file ${f}`));
  }
  return out;
}
