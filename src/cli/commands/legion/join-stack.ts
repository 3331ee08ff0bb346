import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { connectBus } from '../../../bus/index.js';
import type { RuntimeInfo } from '../../../config/index.js';
import { errorClass } from '../../../errors/index.js';
import { workerPermissions } from '../../../protocol/index.js';
import { fileExists } from '../../../files/index.js';
import { readJsonValue } from '../../../text/index.js';
import {
  embeddedAuthPaths,
  embeddedServerConfig,
  mintUser,
  type User,
} from '../../stack/embedded-auth.js';

/**
 * `caesar legion serve-tool --module` could not get its tool an identity in the running
 * stack (`stack_join_failed`): a cluster, a server config it did not write, no live server.
 */
export const StackJoinError = errorClass(
  'stack_join_failed',
  (info: RuntimeInfo, tool: string, reason: string, options?: { cause?: unknown }) => ({
    params: { dataDir: info.data_dir, tool, reason },
    options,
  }),
);
export type StackJoinError = InstanceType<typeof StackJoinError>;

/** How long the reloaded server may take to know the new identity. */
const RELOAD_TIMEOUT_MS = 10_000;
const RELOAD_POLL_MS = 100;

/**
 * The seed file of a worker identity for `tool` in the stack `info` describes, minted now
 * when the stack has none (a module tool not in its `worker.modules`, ADR 0071): a new NKEY
 * user with `workerPermissions([tool])` only, added to the embedded nats-server's config,
 * which is then told to reload (SIGHUP through its pid file). Resolves once the server
 * accepts the identity. Only the owner of the data dir can do this: it writes the stack's
 * files, as `caesar up` does. The identity lasts until the stack stops (the next
 * `caesar up` mints afresh).
 * @throws {StackJoinError} naming the step that failed
 */
export async function joinStackIdentity(info: RuntimeInfo, tool: string): Promise<string> {
  if (info.nats_url.includes(',')) {
    throw new StackJoinError(
      info,
      tool,
      'the stack runs a NATS cluster (`caesar up --cluster`), whose servers are not reloaded one by one',
    );
  }
  const paths = embeddedAuthPaths(info.data_dir);
  const part = `tool-${tool}`;
  const seedFile = `${paths.nkeysDir}/${part}.nk`;
  if (!(await fileExists(seedFile))) await addUser(info, tool, part);
  await acceptedBy(info, tool, seedFile);
  return seedFile;
}

async function addUser(info: RuntimeInfo, tool: string, part: string): Promise<void> {
  const paths = embeddedAuthPaths(info.data_dir);
  const users = await readUsers(info, tool, paths.serverConfig);
  const { publicKey } = await mintUser(paths.nkeysDir, part);
  users.push({ nkey: publicKey, permissions: workerPermissions([tool]) });
  const temp = `${paths.serverConfig}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, embeddedServerConfig(users, paths.pidFile), { mode: 0o600, flag: 'wx' });
    await rename(temp, paths.serverConfig);
  } finally {
    await rm(temp, { force: true });
  }
  const pid = Number((await readFile(paths.pidFile, 'utf8').catch(() => '')).trim());
  if (!Number.isInteger(pid) || pid <= 0) {
    throw new StackJoinError(info, tool, `no nats-server pid in ${paths.pidFile}`);
  }
  try {
    process.kill(pid, 'SIGHUP');
  } catch (err) {
    throw new StackJoinError(info, tool, `cannot signal nats-server (pid ${pid}) to reload`, {
      cause: err,
    });
  }
}

/** The users of the server config `caesar up` wrote (`authorization: {users: […]}`). */
async function readUsers(info: RuntimeInfo, tool: string, file: string): Promise<User[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const m = /^authorization: (\{[\s\S]*\})\s*$/m.exec(text);
  const parsed = readJsonValue(m?.[1] ?? '') as { users?: unknown } | undefined | null;
  if (Array.isArray(parsed?.users)) return parsed.users as User[];
  throw new StackJoinError(info, tool, `${file} is not the server config \`caesar up\` writes`);
}

/** Waits until the server accepts the seed: its reload is asynchronous. */
async function acceptedBy(info: RuntimeInfo, tool: string, seedFile: string): Promise<void> {
  const until = Date.now() + RELOAD_TIMEOUT_MS;
  for (;;) {
    try {
      const nc = await connectBus({
        servers: info.nats_url,
        auth: { kind: 'nkey', seedFile },
        connectTimeoutMs: 2000,
      });
      await nc.close();
      return;
    } catch (err) {
      if (Date.now() > until) {
        throw new StackJoinError(
          info,
          tool,
          `the NATS server at ${info.nats_url} did not accept the new identity within ${RELOAD_TIMEOUT_MS} ms (${(err as Error).message})`,
          { cause: err },
        );
      }
      await new Promise((r) => setTimeout(r, RELOAD_POLL_MS));
    }
  }
}
