import { readFile } from 'node:fs/promises';
import { toolConfigSections, type BusAuth } from '../../../config/index.js';
import { CaesarError } from '../../../errors/index.js';
import { runTools } from '../../../legion/index.js';
import { createLogger } from '../../../log/index.js';
import { loadShippedTools } from '../../../../workers/index.js';
import type { BusFlags } from '../../flags.js';
import { loadCliConfig } from '../../load-config.js';
import {
  leaveSupervisor,
  stopWithSupervisor,
  tellSupervisor,
  underSupervisor,
} from '../../stack/child.js';

/** `caesar legion serve-tool`'s flags. */
export interface ServeFlags extends BusFlags {
  host?: string;
}

/**
 * Serves the shipped tools `names` over NATS until stopped; under `caesar up`, says when
 * ready, then what each tool's preflight found.
 */
export async function serveTool(names: string[], flags: ServeFlags): Promise<number> {
  const config = await loadCliConfig(flags);
  const logger = createLogger({ level: config.log.level, bindings: { component: 'worker' } });
  const tools = await loadShippedTools(names);
  stopWithSupervisor();
  let failed = false;
  try {
    return await runTools(tools, {
      bus: { ...config.busOptions, name: `caesar-worker ${names.join(',')}` },
      logger,
      host: flags.host ?? config.worker.host,
      config: toolConfigSections(config),
      graceMs: config.worker.graceMs,
      onReady: (worker) => {
        const instances = worker.instances.map((i) => ({ tool: i.tool, id: i.id, host: i.host }));
        logger.info({ instances }, 'ready');
        if (!tellSupervisor({ type: 'worker_ready', instances })) return;
        worker.preflight().then(
          (replies) => underSupervisor() && tellSupervisor({ type: 'worker_preflight', replies }),
          (err: unknown) => logger.warn({ err }, 'preflight failed'),
        );
      },
    });
  } catch (err) {
    // leave the IPC channel to main.ts, which tells the supervisor why before it closes it
    failed = true;
    if (isPermissionError(err)) {
      const identity = await describeIdentity(config.busOptions.auth);
      throw new Error(`${err.message}; this worker's identity: ${identity}`, { cause: err });
    }
    throw err;
  } finally {
    // An open IPC channel would keep this process alive after the tools stopped.
    if (!failed) leaveSupervisor();
  }
}

function isPermissionError(err: unknown): err is CaesarError {
  return err instanceof CaesarError && err.code === 'bus_permission_denied';
}

/** Who this process is on NATS, for an error that says which identity lacks a permission. */
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
      const { fromSeed } = await import('@nats-io/nkeys');
      try {
        const seed = (await readFile(auth.seedFile, 'utf8')).trim();
        const key = fromSeed(new TextEncoder().encode(seed)).getPublicKey();
        return `the NKEY ${key} (seed file ${auth.seedFile})`;
      } catch {
        return `the NKEY in ${auth.seedFile}`;
      }
    }
  }
}
