import type { NatsConnection } from '@nats-io/nats-core';
import {
  describePreflight,
  PreflightCache,
  preflightState,
  preflightView,
  preflightWarns,
  type PreflightState,
} from '../../../brain/preflight/index.js';
import { discoverServices, type DiscoveredTool } from '../../../brain/registry/index.js';
import {
  BusPermissionError,
  connectBus,
  describeRefusals,
  refusalsDuring,
  type Refusal,
} from '../../../bus/index.js';
import type { BusAuth, RunningStack, ToolLimits } from '../../../config/index.js';
import { CaesarError } from '../../../errors/index.js';
import { formatPolicyWarning } from '../../../policy/index.js';
import { terminalLine } from '../../../text/index.js';
import { describeFailure } from '../../brain-client/command.js';
import { explainClientRefusal } from '../../program/bus-identity.js';
import { openApiClient } from '../../brain-client/target.js';
import type { BusFlags } from '../../program/flags.js';
import { loadClientConfig } from '../../program/load-config.js';
import { tableLines } from '../../program/table.js';
import { terminal } from '../../program/terminal.js';

/** `caesar legion list`'s flags. */
export type ListFlags = BusFlags & { json?: boolean; wait: string };

/** `caesar legion list`: the tools and instances connected to NATS, with their preflight. */
export async function runList(flags: ListFlags): Promise<void> {
  // No --nats-url and no configured URL: the running stack's, from <data-dir>/runtime.json,
  // as the operator identity its embedded server was started with.
  const { config, stack } = await loadClientConfig(flags);
  let nc: NatsConnection;
  try {
    nc = await connectBus({ ...config.busOptions, name: 'caesar-cli' });
  } catch (err) {
    // the server refused the identity: which one was sent, or where none was found (ADR 0072)
    const auth = config.busOptions.auth;
    const explained = await explainClientRefusal(err, { flags, auth, stack, env: process.env });
    if (explained !== err) throw explained;
    // no URL on the command line or in the env, and no stack found to take one from: say how
    // to start or find one
    const defaulted = flags.natsUrl === undefined && process.env.CAESAR_BUS__URL === undefined;
    if (!(err instanceof CaesarError) || stack.missing === undefined || !defaulted) throw err;
    throw new CaesarError(
      err.code,
      `${err.message}; ${stack.missing} Start the stack with \`caesar up\`, pass ` +
        '--data-dir <its data dir>, or point at a NATS server with --nats-url',
      { cause: err },
    );
  }
  try {
    let tools: ListedTool[] = [];
    const refused = await refusalsDuring(nc, async () => {
      tools = await listTools(nc, Number(flags.wait), config.toolLimits);
      await nc.flush();
    });
    // an identity the server knows but that may not ask discovery (a worker's or a brain's
    // seed): the table would be empty or partial, so say so instead (ADR 0072)
    if (refused.length > 0) throw notTheOperator(refused, config.busOptions.auth);
    if (flags.json) terminal.out(JSON.stringify(tools, null, 2));
    else printInstancesTable(tools);
  } finally {
    await nc.close();
  }
  const warning = await policyWarning(flags, stack);
  // beside the table on stdout; with --json on stderr, so the JSON stays one document
  if (warning !== null) {
    (flags.json ? terminal.err : terminal.out)(`\nwarning: ${terminalLine(warning)}`);
  }
}

/** `legion list` needs the operator identity: the server refused `refused` to this one. */
function notTheOperator(refused: Refusal[], auth: BusAuth): BusPermissionError {
  const who = auth.kind === 'nkey' ? `the NKEY in ${terminalLine(auth.seedFile)}` : 'this identity';
  return new BusPermissionError({
    refused: `${who} the ${describeRefusals(refused)} that listing the tools needs`,
    why: 'it is not the operator',
    next:
      'Connect as the operator with --nkey-seed-file <its seed> or set ' +
      'CAESAR_BUS__NKEY_SEED_FILE (caesar legion list --help says where the seed is looked for)',
  });
}

/** How long `legion list` waits for the brain's policy status. */
const POLICY_STATUS_TIMEOUT_MS = 3000;

/**
 * A warning when the stack's brain enforces a policy the file on disk no longer holds (broken
 * or not loaded yet), or when it cannot be asked; null when it can and the file is the
 * enforced policy, or when no stack is running (NATS alone has no policy to ask about).
 */
async function policyWarning(flags: ListFlags, stack: RunningStack): Promise<string | null> {
  if (stack.info === undefined) return null;
  const api = { timeout: POLICY_STATUS_TIMEOUT_MS, ...pick(flags) };
  let target;
  try {
    const opened = await openApiClient(api);
    target = opened.target;
    return formatPolicyWarning(await opened.client.policyStatus());
  } catch (err) {
    return `could not ask the brain for its policy status (caesar policy status): ${describeFailure(err, target)}`;
  }
}

function pick(flags: ListFlags): { config?: string; dataDir?: string } {
  return {
    ...(flags.config === undefined ? {} : { config: flags.config }),
    ...(flags.dataDir === undefined ? {} : { dataDir: flags.dataDir }),
  };
}

/** What `caesar legion list --json` prints per tool (the full spec is left out). */
type ListedTool = Omit<DiscoveredTool, 'spec'> & {
  title: string;
  /**
   * The tool's own preflight (is its backend configured and reachable?), with the operator's
   * `tools.limits` applied as the brain applies them; `warns`: each call waits for a human.
   */
  preflight: { state: PreflightState; warns: boolean; detail: string[]; line: string };
};

/** How long `legion list` waits for each tool's preflight answer. */
const PREFLIGHT_TIMEOUT_MS = 5000;

async function listTools(
  nc: NatsConnection,
  windowMs: number,
  limits: ToolLimits,
): Promise<ListedTool[]> {
  const tools = await discoverServices(nc, { windowMs });
  const cache = new PreflightCache(nc, { timeoutMs: PREFLIGHT_TIMEOUT_MS, limits });
  const preflights = await Promise.all(tools.map((t) => cache.get(t.tool)));
  return tools.map(({ spec, ...rest }, i) => {
    const r = preflights[i]!;
    const preflight = {
      state: preflightState(r),
      warns: preflightWarns(r),
      detail: preflightView(r).detail,
      line: describePreflight(rest.tool, r),
    };
    return { ...rest, title: spec.title, preflight };
  });
}

const STATE_TEXT: Record<PreflightState, string> = {
  ready: 'ready',
  not_configured: 'not configured',
  not_ready: 'not ready',
  unknown: 'no answer',
};

/** The PREFLIGHT cell: `ready, warns` for a ready tool whose calls wait for a human. */
function stateText(p: ListedTool['preflight']): string {
  return p.state === 'ready' && p.warns ? 'ready, warns' : STATE_TEXT[p.state];
}

/**
 * A row per tool. Each cell is what a worker said about itself (its host name, its version,
 * its preflight): escaped as one line before the columns are measured (ADR 0064).
 */
function printInstancesTable(tools: ListedTool[]): void {
  if (tools.length === 0) {
    terminal.out(
      'no tools connected (start one with `caesar legion serve-tool <name>` or `caesar up`)',
    );
    return;
  }
  const rows = [
    [
      'TOOL',
      'VERSION',
      'INSTANCES',
      'HOSTS',
      'IN-FLIGHT',
      'REQUESTS',
      'ERRORS',
      'PREFLIGHT',
      'RESTARTS',
    ],
    ...tools.map((t) =>
      [
        t.tool,
        t.version,
        String(t.instances.length),
        t.hosts.join(','),
        String(t.inFlight),
        String(t.requests),
        String(t.errors),
        stateText(t.preflight),
        String(t.instances.reduce((n, i) => n + (i.restarts?.count ?? 0), 0)),
      ].map(terminalLine),
    ),
  ];
  for (const line of tableLines(rows)) terminal.out(line);
  const restarted = tools.flatMap((t) => t.instances.flatMap((i) => restartLine(t.tool, i)));
  if (restarted.length > 0) terminal.out('');
  for (const line of restarted) terminal.out(line);
  // what keeps a tool from being ready, or makes its calls wait for a human
  const told = tools.filter((t) => t.preflight.state !== 'ready' || t.preflight.warns);
  if (told.length === 0) return;
  terminal.out('');
  for (const t of told) terminal.out(terminalLine(t.preflight.line));
}

/**
 * One line per instance `caesar up` restarted (ADR 0070): `calculator Xy7kQ2 on pi4:
 * restarted 3x, last: unresponsive at 2026-12-04T10:00:00.000Z`. The id and host are what
 * the worker said about itself: escaped as one line (ADR 0064).
 */
function restartLine(tool: string, instance: ListedTool['instances'][number]): string[] {
  const r = instance.restarts;
  if (r === undefined) return [];
  return [
    terminalLine(
      `${tool} ${instance.id} on ${instance.host}: restarted ${r.count}x, ` +
        `last: ${r.last_reason} at ${r.last_at}`,
    ),
  ];
}
