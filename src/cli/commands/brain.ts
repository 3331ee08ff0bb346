import type { Command } from 'commander';
import { startBrain } from '../../brain/daemon/index.js';
import { createLogger } from '../../log/index.js';
import { addBusFlags, type BusFlags } from '../flags.js';
import { loadCliConfig } from '../load-config.js';
import { stopOnSignal } from '../signals.js';
import { leaveSupervisor, stopWithSupervisor, tellSupervisor } from '../stack/child.js';

interface BrainFlags extends BusFlags {
  apiHost?: string;
  apiPort?: string;
  policy?: string;
}

export function register(program: Command): void {
  addBusFlags(
    program
      .command('brain')
      .description(
        'run the brain alone (HTTP API, policy gate, audit log) against an existing NATS',
      )
      .option('--api-host <address>', 'address the HTTP API listens on (default 127.0.0.1)')
      .option('--api-port <port>', 'port of the HTTP API (default 8420; 0 = any free port)')
      .option('--policy <file>', 'policy file (default ./policy/policy.yaml)'),
  ).action(async (flags: BrainFlags) => {
    process.exitCode = await runBrain(flags);
  });
}

async function runBrain(flags: BrainFlags): Promise<number> {
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
