import { dirname, join } from 'node:path';
import { readTokensFile } from '../../brain/api/index.js';
import { startBrain, type RunningBrain } from '../../brain/daemon/index.js';
import { describeModelCheck, describeModelChoice, preflightModels } from '../../brain/llm/index.js';
import {
  readRuntimeFile,
  removeRuntimeFile,
  writeRuntimeFile,
  type CaesarConfig,
  type RuntimeInfoInput,
} from '../../config/index.js';
import { createLogger, type Logger } from '../../log/index.js';
import {
  formatPolicyIssueLine,
  formatReloaded,
  formatReloadFailed,
  type PolicyEvent,
  type PolicyIssue,
} from '../../policy/index.js';
import { terminalLine } from '../../text/index.js';
import { TOOL_NAME_PATTERN } from '../../protocol/index.js';
import { shippedToolNames } from '../../../workers/index.js';
import { OPERATOR_SEED_NAME, withIdentity } from '../program/bus-identity.js';
import { commaList, type BrainFileFlags, type BusFlags } from '../program/flags.js';
import { loadCliConfig } from '../program/load-config.js';
import { printedOnItsOwn } from '../stack/own-lines.js';
import { seedFiles } from '../program/seed-files.js';
import { startOwnWatchdog } from '../stack/own-watchdog.js';
import { stopOnSignal } from '../program/signals.js';
import {
  leaveSupervisor,
  stopWithSupervisor,
  tellSupervisor,
  underSupervisor,
} from '../stack/child.js';
import type { SupervisorMessage } from '../stack/messages.js';
import { hearSupervisor } from '../stack/supervisor-inbox.js';
import { terminal } from '../program/terminal.js';

/** `caesar brain`'s flags. */
export interface BrainFlags extends BusFlags, BrainFileFlags {
  apiHost?: string;
  apiPort?: string;
  /** `--expect-tools`: comma-separated tool names. */
  expectTools?: string;
}

/**
 * `--expect-tools` as tool names.
 * @throws {Error} naming the flag and the first entry that is not a tool name
 */
export function expectedTools(list: string | undefined): string[] {
  const tools = commaList(list ?? '');
  const bad = tools.find((t) => !TOOL_NAME_PATTERN.test(t));
  if (bad !== undefined) {
    throw new Error(
      `--expect-tools: ${JSON.stringify(bad)} is not a tool name (${TOOL_NAME_PATTERN.source})`,
    );
  }
  return tools;
}

/**
 * `caesar brain`: runs the brain until SIGINT or SIGTERM. Under `caesar up` it says when it is
 * ready; run alone it copies the shipped policy and intents into the data dir when they are
 * not there yet (ADR 0056), writes `<data_dir>/runtime.json` (removed on the way out), so
 * client commands find it as they find a `caesar up` stack, and refuses a data dir another
 * live stack or brain has published.
 */
export async function runBrain(flags: BrainFlags): Promise<number> {
  const api: Record<string, unknown> = {};
  if (flags.apiHost !== undefined) api.host = flags.apiHost;
  if (flags.apiPort !== undefined) api.port = Number(flags.apiPort);
  const raw: Record<string, unknown> = {};
  if (Object.keys(api).length > 0) raw.api = api;
  const expected = expectedTools(flags.expectTools);
  const config = await loadCliConfig({ ...flags, raw });
  const alone = !underSupervisor();
  if (alone) await refuseLiveStack(config.dataDir);
  // the audit log, conversations and tokens file are for the brain's user only
  process.umask(0o077);
  // under `caesar up`, which seeded them and passes both paths
  if (alone) await seedFiles(config, (line) => terminal.out(line));
  const logger = createLogger({
    level: config.log.level,
    format: config.log.format,
    bindings: { process: 'brain' },
    hideWhenPretty: printedOnItsOwn,
  });
  const watchdog = startOwnWatchdog(config, 'brain', logger);
  // the model endpoint's check runs beside the start (bounded: MODEL_PREFLIGHT_TIMEOUT_MS)
  const model = describeModelChoice(config.llm);
  logger.info({ provider: config.llm.provider }, model);
  const checking = preflightModels(config.llm);
  const launch = { shipped: shippedToolNames(), embedded: !alone };
  const known: { warnings?: () => readonly PolicyIssue[] } = {};
  const onPolicyEvent = policyLines(known);
  const problems = checking.then((checks) =>
    checks.filter((c) => c.state === 'problem').map(describeModelCheck),
  );
  const brain = await startBrain(config, {
    logger,
    expectedTools: expected,
    launch,
    onPolicyEvent,
    model: { choice: model, problems },
  }).catch(async (err: unknown) => {
    throw await withIdentity(err, config.busOptions.auth, "the brain's identity");
  });
  known.warnings = () => brain.core.policyWarnings();
  warningLines(config.policy.file, known.warnings());
  stopWithSupervisor();
  const deaf = hearSupervisor(supervisorInbox(brain, logger));
  const stopped = stopOnSignal(async () => {
    deaf();
    await watchdog.stop();
    await brain.close();
    if (alone) await removeRuntimeFile(config.dataDir);
  });
  const checks = (await checking).map((c) => {
    const line = describeModelCheck(c);
    if (c.state === 'problem') logger.warn({ provider: c.provider, model: c.model }, line);
    else logger.info({ provider: c.provider, model: c.model }, line);
    return line;
  });
  const told = tellSupervisor({
    type: 'brain_ready',
    url: brain.url,
    nats_url: `nats://${brain.natsUrl}`,
    tokens_file: config.api.tokensFile,
    created_tokens_file: brain.createdTokensFile,
    audit_db: config.audit.file,
    policy_file: config.policy.file,
    ...(brain.grantKey === undefined ? {} : { grant_key: brain.grantKey }),
    llm: { model, checks },
  });
  if (!told) {
    const runtimeFile = await writeRuntimeFile(
      config.dataDir,
      await runtimeInfo(config, brain.url, brain.grantKey),
    );
    terminal.out(`brain ready: ${brain.url} (NATS nats://${brain.natsUrl})`);
    terminal.out(
      `API tokens: ${config.api.tokensFile}${brain.createdTokensFile ? ' (created)' : ''}`,
    );
    terminal.out(`runtime: ${runtimeFile} (client commands find this brain)`);
    terminal.out(model);
    for (const line of checks) terminal.out(terminalLine(line));
  }
  watchdog.ready();
  await stopped;
  leaveSupervisor();
  return 0;
}

/**
 * What `caesar up` tells its brain: each restart of a part of the stack becomes one
 * `worker.restarted` row (ADR 0070); a malformed message is refused with a warn line naming
 * its fields, and writes nothing.
 */
function supervisorInbox(brain: RunningBrain, logger: Logger) {
  return {
    message: (message: SupervisorMessage) => {
      // the one message a supervisor sends today; a later one is not a restart
      if (message.type !== 'child_restarted') return;
      const { type: _type, ...report } = message;
      brain.recordRestart(report).catch((err: unknown) => {
        logger.error({ err, name: report.name }, 'could not audit a restart');
      });
    },
    malformed: (problem: string) => {
      logger.warn({ problem }, 'refused a supervisor message: not a message caesar up sends');
    },
  };
}

/**
 * One readable line per policy change on stderr (under `caesar up` its terminal shows it as
 * `[brain] policy: ...`): a refused reload names file:line:col, the problem and the fix; the
 * next good load says the file is good again. The JSON log line is written as well; a
 * readable log leaves it out (`printedOnItsOwn`): one line per event on a terminal.
 */
function policyLines(known: {
  warnings?: () => readonly PolicyIssue[];
}): (event: PolicyEvent) => void {
  let refused = false;
  return (event) => {
    if (event.type === 'policy.reload_failed') {
      refused = true;
      terminal.err(formatReloadFailed(event));
      return;
    }
    if (event.changed || refused) {
      terminal.err(formatReloaded(event, refused));
      warningLines(event.path, known.warnings?.() ?? []);
    }
    refused = false;
  };
}

/**
 * A line per warning about the enforced policy, on start and after each reload that changed
 * it: a rule that never applies, a tool no worker serves and no catalog lists (with the
 * closest known name). The file's words are escaped onto one line each.
 */
function warningLines(file: string, warnings: readonly PolicyIssue[]): void {
  for (const w of warnings) terminal.err(terminalLine(formatPolicyIssueLine(file, w)));
}

/** A data dir whose runtime.json names a live process belongs to that stack or brain. */
async function refuseLiveStack(dataDir: string): Promise<void> {
  const running = await readRuntimeFile(dataDir);
  if (running === undefined) return;
  throw new Error(
    `another caesar up or caesar brain (pid ${running.pid}) is running with data dir ` +
      `${dataDir}: stop it first, or pass another --data-dir`,
  );
}

/**
 * What runtime.json says about a brain run alone: no tools of its own and no operator seed
 * minted, but where a client on this host looks for one ({@link operatorSeedBeside}).
 */
async function runtimeInfo(
  config: CaesarConfig,
  apiUrl: string,
  grantKey: string | undefined,
): Promise<RuntimeInfoInput> {
  const names = (await readTokensFile(config.api.tokensFile)).map((t) => t.name);
  return {
    pid: process.pid,
    started_at: new Date().toISOString(),
    data_dir: config.dataDir,
    nats_url: config.busOptions.servers.join(','),
    api_url: apiUrl,
    ...(grantKey === undefined ? {} : { brain_key: grantKey }),
    ...operatorSeedBeside(config),
    token_file: config.api.tokensFile,
    token_name: names.includes('operator') ? 'operator' : (names[0] ?? 'operator'),
    audit_db: config.audit.file,
    policy_file: config.policy.file,
    tools: [],
  };
}

/**
 * `operator.nk` in the directory of the brain's own NKEY seed (`/etc/caesar/operator.nk`
 * beside `/etc/caesar/brain.nk`): where docs/operations.md has the operator put the seed a
 * brain host's CLI connects with. Named, not read: a client uses it if it is there (ADR 0072).
 */
function operatorSeedBeside(config: CaesarConfig): { operator_seed_file?: string } {
  const auth = config.busOptions.auth;
  if (auth.kind !== 'nkey') return {};
  return { operator_seed_file: join(dirname(auth.seedFile), OPERATOR_SEED_NAME) };
}
