import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Credentials `caesar up` mints for its embedded nats-server on every start, so that other
 * local users cannot read dispatches off the loopback port or serve a fake tool. The token
 * is written to two files in the data directory, both mode 0600: a nats-server config that
 * requires it, and the bare token, which the children read through
 * `CAESAR_BUS__TOKEN_FILE` and CLI commands through `runtime.json`. It never appears in a
 * command line or the environment.
 */
export interface EmbeddedAuth {
  /** nats-server config file requiring the token. */
  readonly serverConfig: string;
  /** File holding the bare token. */
  readonly tokenFile: string;
  readonly token: string;
}

export const EMBEDDED_TOKEN_FILE = 'nats-token';
export const EMBEDDED_SERVER_CONFIG = 'nats-server.conf';

export async function mintEmbeddedAuth(dataDir: string): Promise<EmbeddedAuth> {
  const token = randomBytes(32).toString('base64url');
  const serverConfig = join(dataDir, EMBEDDED_SERVER_CONFIG);
  const tokenFile = join(dataDir, EMBEDDED_TOKEN_FILE);
  const conf = [
    '# Written by `caesar up` on every start; the token changes each time.',
    `authorization { token: "${token}" }`,
    '',
  ].join('\n');
  await writeFile(serverConfig, conf, { mode: 0o600 });
  await writeFile(tokenFile, `${token}\n`, { mode: 0o600 });
  return { serverConfig, tokenFile, token };
}

/** The token in a file written by {@link mintEmbeddedAuth}. */
export async function readEmbeddedToken(file: string): Promise<string> {
  const token = (await readFile(file, 'utf8')).trim();
  if (token === '') throw new Error(`${file} is empty: is it the running stack's NATS token?`);
  return token;
}
