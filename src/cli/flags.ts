import { InvalidArgumentError, type Command } from 'commander';
// the file, not config/index.js: a flag is declared without loading the config schema (ADR 0047)
import { parseSettingDuration as parseDuration } from '../config/setting-duration.js';

/**
 * The flags commands share, and how they become config overrides: the NATS flags of the
 * commands that talk to NATS (`brain`, `legion ...`) and the API flags of the commands that
 * talk to the brain's HTTP API (`chat`, `invoke`, `confirm`, `reject`).
 */

/** Flags every command that talks to NATS accepts; each maps onto one config key. */
export interface BusFlags {
  config?: string;
  dataDir?: string;
  natsUrl?: string;
  nkeySeedFile?: string;
  credsFile?: string;
  inboxIdentity?: string;
  logLevel?: string;
}

export function addBusFlags(cmd: Command): Command {
  return cmd
    .option('--config <file>', 'caesar.yaml to read (default: $CAESAR_CONFIG, then ./caesar.yaml)')
    .option('--data-dir <dir>', 'data directory of the running stack (default ./var)')
    .option('--nats-url <url>', 'NATS server URL(s), comma-separated (env CAESAR_BUS__URL)')
    .option(
      '--nkey-seed-file <file>',
      'NKEY seed file for this identity (env CAESAR_BUS__NKEY_SEED_FILE)',
    )
    .option('--creds-file <file>', 'NATS credentials file (env CAESAR_BUS__CREDS_FILE)')
    .option(
      '--inbox-identity <name>',
      'reply inbox prefix _INBOX.<name> for least-privilege setups',
    )
    .option(
      '--log-level <level>',
      'fatal|error|warn|info|debug|trace|silent (env CAESAR_LOG__LEVEL)',
    );
}

/** Config overrides from flags (snake_case, as in caesar.yaml); flags beat env and file. */
export function overridesFromFlags(flags: BusFlags): Record<string, unknown> {
  const bus: Record<string, unknown> = {};
  if (flags.natsUrl) bus.url = flags.natsUrl;
  if (flags.nkeySeedFile) bus.nkey_seed_file = flags.nkeySeedFile;
  if (flags.credsFile) bus.creds_file = flags.credsFile;
  if (flags.inboxIdentity) bus.inbox_identity = flags.inboxIdentity;
  const out: Record<string, unknown> = {};
  if (Object.keys(bus).length > 0) out.bus = bus;
  if (flags.logLevel) out.log = { level: flags.logLevel };
  if (flags.dataDir) out.data_dir = flags.dataDir;
  return out;
}

/** Flags of the commands that talk to the brain's HTTP API (`chat`, `invoke`, `confirm`). */
export interface ApiFlags {
  config?: string;
  dataDir?: string;
  apiUrl?: string;
  tokenFile?: string;
  tokenName?: string;
  /** Deadline of one request in ms. @default {@link DEFAULT_API_TIMEOUT_MS} */
  timeout?: number;
}

/** How long one API request may take by default: a chat turn may run several tools. */
export const DEFAULT_API_TIMEOUT_MS = 120_000;

/** Where to talk to: flags beat the running stack's runtime.json, which beats caesar.yaml. */
export function addApiFlags(cmd: Command): Command {
  return cmd
    .option('--data-dir <dir>', 'data directory of the running stack (default ./var)')
    .option('--config <file>', 'caesar.yaml to read (default: $CAESAR_CONFIG, then ./caesar.yaml)')
    .option('--api-url <url>', "the brain's HTTP API (default: from <data-dir>/runtime.json)")
    .option('--token-file <file>', 'API tokens file (default: from <data-dir>/runtime.json)')
    .option(
      '--token-name <name>',
      "which token of the file to use (default: runtime.json's, else operator, else the only one)",
    )
    .option('--timeout <duration>', 'deadline of one request (default 120s)', timeoutMs);
}

function timeoutMs(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms === 0) {
    throw new InvalidArgumentError('expected a duration such as 500ms, 30s or 2m');
  }
  return ms;
}
