import { InvalidArgumentError, type Command } from 'commander';
// the file, not config/index.js: a flag is declared without loading the config schema (ADR 0047)
import { parseSettingDuration as parseDuration } from '../../config/setting-duration.js';

/**
 * The flags commands share: the NATS flags of the commands that talk to NATS (`brain`,
 * `legion ...`) and the API flags of the commands that talk to the brain's HTTP API (`chat`,
 * `invoke`, `confirm`, `reject`). Declarations only: imports nothing but commander and the
 * duration grammar (ADR 0047); `load-config.ts` turns the flags into config overrides.
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

/**
 * Where a client command that connects to NATS as the operator (`caesar legion list`) finds
 * its identity, first found wins: its `--help` epilogue. docs/operations.md ("Which identity
 * a client uses") says the same, and the config loader's runtime.json layer does it (ADR 0072).
 */
export const CLIENT_IDENTITY_HELP = `
NATS identity, first found wins:
  1. --nkey-seed-file or --creds-file
  2. CAESAR_BUS__NKEY_SEED_FILE, CAESAR_BUS__CREDS_FILE or CAESAR_BUS__TOKEN,
     then bus.nkey_seed_file, bus.creds_file or bus.token in caesar.yaml
  3. the running stack's operator seed, from <data-dir>/runtime.json, and only
     with its NATS URL (no --nats-url, CAESAR_BUS__URL or bus.url):
     - caesar up: <data-dir>/nkeys/operator.nk
     - caesar brain run alone: operator.nk beside the brain's own seed file
       (/etc/caesar/operator.nk beside /etc/caesar/brain.nk)
A server that refuses the client names the places looked and the flag to use.`;

/** The brain's own files (`up`, `brain`); defaults in the data dir, seeded on first start (ADR 0056). */
export interface BrainFileFlags {
  policy?: string;
  intents?: string;
}

export function addBrainFileFlags(cmd: Command): Command {
  return cmd
    .option(
      '--policy <file>',
      'policy file (default <data-dir>/policy.yaml, copied from the shipped one on first start)',
    )
    .option(
      '--intents <file>',
      'intent rules (default <data-dir>/intents.yaml, copied from the shipped one on first start)',
    );
}

/** Flags of the commands that talk to the brain's HTTP API (`chat`, `invoke`, `confirm`). */
export interface ApiFlags {
  config?: string;
  dataDir?: string;
  apiUrl?: string;
  tokenFile?: string;
  tokenName?: string;
  /** Deadline of one request in ms. @default 120000 (the API client's: a chat turn may run several tools) */
  timeout?: number;
}

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
    .option('--timeout <duration>', 'deadline of one request (default 120s)', durationFlag);
}

/** A comma-separated flag (`--tools a,b`) as its entries, each trimmed, empty ones dropped. */
export function commaList(text: string): string[] {
  return text
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

/** A flag's duration in ms (`500ms`, `30s`, `2m`; more than zero), for commander. */
export function durationFlag(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms === 0) {
    throw new InvalidArgumentError('expected a duration such as 500ms, 30s or 2m');
  }
  return ms;
}
