import { readNkeySeed } from '../bus/index.js';
import type { BusAuth } from '../config/index.js';
import { CaesarError } from '../errors/index.js';

/**
 * A NATS permission refusal (`bus_permission_denied`) with the identity it was refused to
 * appended, so the operator knows which key's block to fix; any other error as it is.
 */
export async function withIdentity(
  err: unknown,
  auth: BusAuth | undefined,
  whose: string,
): Promise<unknown> {
  if (!(err instanceof CaesarError) || err.code !== 'bus_permission_denied') return err;
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
