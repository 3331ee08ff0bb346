import { toolConfigSections } from '../../../config/index.js';
import { runTools } from '../../../legion/index.js';
import { createLogger } from '../../../log/index.js';
import { loadShippedTools } from '../../../../workers/index.js';
import { withIdentity } from '../../bus-identity.js';
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
    throw await withIdentity(err, config.busOptions.auth, "this worker's identity");
  } finally {
    // An open IPC channel would keep this process alive after the tools stopped.
    if (!failed) leaveSupervisor();
  }
}
