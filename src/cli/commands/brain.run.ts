import { startBrain } from '../../brain/daemon/index.js';
import { createLogger } from '../../log/index.js';
import type { BusFlags } from '../flags.js';
import { loadCliConfig } from '../load-config.js';
import { stopOnSignal } from '../signals.js';
import { leaveSupervisor, stopWithSupervisor, tellSupervisor } from '../stack/child.js';

/** `caesar brain`'s flags. */
export interface BrainFlags extends BusFlags {
  apiHost?: string;
  apiPort?: string;
  policy?: string;
}

/** `caesar brain`: runs the brain until SIGINT or SIGTERM; under `caesar up`, says when it is ready. */
export async function runBrain(flags: BrainFlags): Promise<number> {
  const api: Record<string, unknown> = {};
  if (flags.apiHost !== undefined) api.host = flags.apiHost;
  if (flags.apiPort !== undefined) api.port = Number(flags.apiPort);
  const raw: Record<string, unknown> = {};
  if (Object.keys(api).length > 0) raw.api = api;
  if (flags.policy !== undefined) raw.policy = { file: flags.policy };
  const config = await loadCliConfig({ ...flags, raw });
  // the audit log, conversations and tokens file are for the brain's user only
  process.umask(0o077);
  const logger = createLogger({ level: config.log.level, bindings: { process: 'brain' } });
  const brain = await startBrain(config, { logger });
  stopWithSupervisor();
  const stopped = stopOnSignal(() => brain.close());
  const told = tellSupervisor({
    type: 'brain_ready',
    url: brain.url,
    nats_url: `nats://${brain.natsUrl}`,
    tokens_file: config.api.tokensFile,
    created_tokens_file: brain.createdTokensFile,
    audit_db: config.audit.file,
    policy_file: config.policy.file,
  });
  if (!told) {
    console.log(`brain ready: ${brain.url} (NATS nats://${brain.natsUrl})`);
    console.log(
      `API tokens: ${config.api.tokensFile}${brain.createdTokensFile ? ' (created)' : ''}`,
    );
  }
  await stopped;
  leaveSupervisor();
  return 0;
}
