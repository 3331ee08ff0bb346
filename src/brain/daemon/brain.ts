import type { NatsConnection } from '@nats-io/nats-core';
import { waitAtMost } from '../../clock/index.js';
import { openAuditLog, type AuditLog } from '../../audit/index.js';
import {
  BusPermissionError,
  connectBus,
  ConnectionWatch,
  describeRefusals,
  flushWhenConnected,
  readNkeySeed,
  refusalsDuring,
} from '../../bus/index.js';
import { GrantSigner } from '../../protocol/grant.js';
import { catalogPath, isPlanned, readCatalog } from '../../legion/catalog/index.js';
import type { CaesarConfig } from '../../config/index.js';
import { silentLogger, type Logger } from '../../log/index.js';
import { openPolicyStore, type PolicyEvent, type PolicyStore } from '../../policy/index.js';
import { Agent, CLOCK_CAPABILITY, modelSteps } from '../agent/index.js';
import { openConversationStore } from '../conversations/index.js';
import { createDispatcher, ReplyBinding } from '../dispatch/index.js';
import { ToolGateway } from '../gateway/index.js';
import { BrainMetrics, buildHttpServer, loadTokens, startHttpServer } from '../http/index.js';
import { ensureTokensFile, principalOf } from '../api/index.js';
import { entityFallback, IntentStore } from '../intents/index.js';
import { createPlanner } from '../llm/index.js';
import { Registry } from '../registry/index.js';
import { watchIncludeTags } from '../capabilities/include-tags-check.js';
import { LiveAuditSink } from '../audit-trail/live-sink.js';
import { LlmMetrics } from './llm-metrics.js';
import { Capabilities } from '../capabilities/capabilities.js';
import { OfferedTools } from '../capabilities/offered-tools.js';
import { PreconditionsGate } from '../capabilities/check-preconditions.js';
import { JobStatusGate } from '../capabilities/job-status.js';
import { JobReports } from '../capabilities/job-reports.js';
import { brainRestart, startStep, type WorkerLaunch } from '../capabilities/worker-launch.js';
import { BrainServiceAdapter, type ModelReport } from './service-adapter.js';
import { policyAuditEvent } from '../audit-trail/policy-audit.js';
import { PreflightCache } from '../preflight/index.js';
import { startJobs } from '../jobs/index.js';
import { specChangedAuditEvent } from '../audit-trail/registry-audit.js';
import { restartAuditEvent, type RestartReport } from '../audit-trail/restart-audit.js';

/** Longest any one stop step may take (NATS down, a slow disk): stopping never hangs. */
const STOP_STEP_MS = 3000;

/** Rejects when `p` takes longer than `ms`. */
async function bounded<T>(p: Promise<T>, ms: number): Promise<T> {
  if (!(await waitAtMost(p, ms))) throw new Error(`did not finish within ${ms} ms`);
  return await p;
}

interface StartBrainOptions {
  logger?: Logger;
  /** Registry sweep interval. @default 5000 */
  sweepIntervalMs?: number;
  /**
   * Tools whose workers start beside this brain (`caesar up`'s, `--expect-tools`): its first
   * registry sweep ends once each has answered. @default none
   */
  expectedTools?: readonly string[];
  /**
   * How workers start where this brain runs, for the "start it" steps of its replies: the
   * shipped tools, and whether `caesar up` runs it (embedded) or it runs alone.
   * @default embedded, every tool taken for a shipped one
   */
  launch?: { readonly shipped?: readonly string[]; readonly embedded: boolean };
  /** Test hook: every audit commit takes this much longer, as on a slow disk. @default 0 */
  auditCommitDelayMs?: number;
  /**
   * Called with every policy reload event after it is audited and logged: `caesar brain`
   * prints a readable line for the operator's terminal.
   */
  onPolicyEvent?: (event: PolicyEvent) => void;
  /** The model the runner checked at start, for `/readyz` (and the dashboard's status). */
  model?: ModelReport;
}

/** A running brain. `close()` stops it in reverse order of start. */
export interface RunningBrain extends AsyncDisposable {
  /** Base URL of the HTTP API, e.g. `http://127.0.0.1:8420`. */
  readonly url: string;
  readonly natsUrl: string;
  /** Whether this start created the tokens file (first run). */
  readonly createdTokensFile: boolean;
  readonly core: BrainServiceAdapter;
  readonly registry: Registry;
  /** The key that signs dispatch grants (the brain's NKEY public key); undefined without one. */
  readonly grantKey: string | undefined;
  /**
   * Writes a restart `caesar up` reported as a `worker.restarted` row (ADR 0070); rejects
   * when the row cannot be written.
   */
  recordRestart(report: RestartReport): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the brain: NATS connection, policy store, audit log, registry, gateway, agent and
 * the HTTP API, all from one frozen config. Fails (and releases what it opened) when any
 * part cannot start: a bad policy file, a locked or newer audit log, a taken port.
 */
export async function startBrain(
  config: CaesarConfig,
  options: StartBrainOptions = {},
): Promise<RunningBrain> {
  const logger = options.logger ?? silentLogger();
  const cleanup: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const step of cleanup.reverse()) {
      try {
        await bounded(Promise.resolve(step()), STOP_STEP_MS);
      } catch (err) {
        logger.warn({ err }, 'error while stopping the brain');
      }
    }
    cleanup.length = 0;
  };
  try {
    return await assemble(config, logger, options, cleanup, close);
  } catch (err) {
    await close();
    throw err;
  }
}

async function assemble(
  config: CaesarConfig,
  logger: Logger,
  options: StartBrainOptions,
  cleanup: (() => Promise<void> | void)[],
  close: () => Promise<void>,
): Promise<RunningBrain> {
  const intents = await IntentStore.open({
    file: config.brain.intentsFile,
    logger: logger.child({ component: 'intents' }),
  });
  cleanup.push(() => intents.close());
  const createdTokensFile = await ensureTokensFile(config.api.tokensFile);
  const tokens = await loadTokens(config.api.tokensFile);

  const audit: AuditLog = openAuditLog({
    path: config.audit.file,
    retention: { days: config.audit.retentionDays },
    writerIdleMs: config.audit.writerIdleMs,
    logger: logger.child({ component: 'audit' }),
    commitDelayMs: options.auditCommitDelayMs,
  });
  cleanup.push(() => audit.close());
  // its writer thread opens the file while the policy, the bus and the first sweep start;
  // the brain waits for it before the job streams, which audit, start (below)
  const auditSink = new LiveAuditSink(audit);

  // the policy store starts before the gateway exists; reloads reach it through this slot
  const late: { gateway?: ToolGateway } = {};
  const onPolicyEvent = (event: PolicyEvent) => {
    if (event.type === 'policy.reloaded' && event.changed) {
      late.gateway?.policyReloaded(event.policy_sha256);
    }
    auditSink.append(policyAuditEvent(event)).catch((err: unknown) => {
      logger.error({ err, event: event.type }, 'could not audit a policy reload');
    });
    options.onPolicyEvent?.(event);
  };
  const policy: PolicyStore = await openPolicyStore({
    path: config.policy.file,
    maxFileBytes: config.policy.maxFileBytes,
    logger: logger.child({ component: 'policy' }),
    onEvent: onPolicyEvent,
  });
  cleanup.push(() => policy.close());

  const nc: NatsConnection = await connectBus({ ...config.busOptions, name: 'caesar-brain' });
  const connection = new ConnectionWatch(nc);
  // draining needs the server; with NATS down, close at once instead of waiting for it
  cleanup.push(async () => {
    if (!connection.status().ok) return nc.close();
    await bounded(nc.drain(), STOP_STEP_MS).catch(() => nc.close());
  });
  const registry = new Registry({
    nc,
    logger: logger.child({ component: 'registry' }),
    expectedTools: options.expectedTools ?? [],
    ...(options.sweepIntervalMs === undefined ? {} : { sweepIntervalMs: options.sweepIntervalMs }),
  });
  // listening before the first sweep, so that a spec refused at start is audited too
  registry.on('spec_changed', (event) => {
    auditSink.append(specChangedAuditEvent(event)).catch((err: unknown) => {
      logger.error({ err, tool: event.tool }, 'could not audit a registry spec change');
    });
  });
  cleanup.push(() => {
    const closing = registry.close();
    // its subscriptions drain through the server: only worth waiting for when connected
    return connection.status().ok ? closing : undefined;
  });
  // The first sweep asks discovery through the brain's reply inbox: a refusal of either, or
  // of the announcements, means the brain could never see a tool. It says so and stops.
  const refused = await refusalsDuring(nc, async () => {
    await registry.start();
    await flushWhenConnected(nc);
  });
  if (refused.length > 0) {
    throw new BusPermissionError({
      refused: `the brain's ${describeRefusals(refused)}`,
      why: "its identity lacks the brain's permissions",
      next:
        'Give it the user block `caesar legion identity new <name> --brain` ' +
        'prints (docs/operations.md), or run it with --inbox-identity <identity> and the block ' +
        '`caesar legion permissions --brain <identity>` prints',
    });
  }

  const signer = await grantSigner(config, logger);
  const metrics = new BrainMetrics();
  // a bad llm section (no model, no key) stops the brain here, naming the key to set
  const planner = createPlanner(config.llm, {
    logger: logger.child({ component: 'llm' }),
    observer: new LlmMetrics(metrics.registry),
  });
  metrics.setInstanceSource(() =>
    registry.tools().map((t) => [t.name, t.instances.length] as const),
  );
  const launch: WorkerLaunch = {
    embedded: true,
    ...options.launch,
    dataDir: config.dataDir,
    ...(config.configFile === undefined ? {} : { configFile: config.configFile }),
    ...(signer === undefined ? {} : { grantKey: signer.publicKey }),
    busAuth: config.busOptions.auth.kind !== 'none',
  };
  // the catalog (ADR 0090), read once at start: its planned stubs are listed, never callable;
  // every entry is a tool the policy may name without a warning that nobody knows it
  const catalog = { file: catalogPath(config.dataDir) };
  const entries = (await readCatalog(catalog.file)).tools;
  const planned = entries.filter(isPlanned);
  // one cache of preflight answers: the gateway holds a call whose tool warns, the planner
  // is offered only ready tools, and the API shows them (with `tools.limits` merged in)
  const preflight = new PreflightCache(nc, { limits: config.toolLimits });
  // the writer thread has the file open: the first call does not wait for it to start
  await audit.ready();
  // jobs (ADR 0098): the work queue on the server's JetStream; without it, job tools are refused
  const jobAudit = { append: auditSink.append.bind(auditSink), query: audit.query.bind(audit) };
  const jobs = await startJobs(
    nc,
    jobAudit,
    signer,
    logger.child({ component: 'jobs' }),
    config.bus.jetstreamReplicas,
  );
  cleanup.push(() => jobs.close());
  const gate = new ToolGateway({
    tools: registry,
    preflight,
    jobs,
    jobLimits: {
      ...(config.toolLimits.maxWallClockMs === undefined
        ? {}
        : { maxWallClockMs: config.toolLimits.maxWallClockMs }),
      ...(config.toolLimits.maxJobsPerTool === undefined
        ? {}
        : { maxPerTool: config.toolLimits.maxJobsPerTool }),
      ...(config.toolLimits.maxJobs === undefined ? {} : { maxTotal: config.toolLimits.maxJobs }),
    },
    policy,
    audit: auditSink,
    dispatcher: createDispatcher({
      nc,
      connection,
      logger: logger.child({ component: 'dispatch' }),
      ...(signer ? { signer, replies: replyBinding(config, registry, logger) } : {}),
      onRefusedReply: (tool, refusal) => metrics.replyRefused(tool, refusal.kind),
      onGrantResent: (tool) => metrics.grantResent(tool),
      // calls the bus loses in flight end with their result, not a timeout (ADR 0099)
      recovery: { tools: registry },
    }),
    callTimeoutMs: config.brain.callTimeoutMs,
    confirmationTtlMs: config.brain.confirmationTtlMs,
    startStep: (tool) => startStep(launch, tool),
    plannedIn: (tool) => (planned.some((p) => p.name === tool) ? catalog.file : undefined),
    metrics,
    logger: logger.child({ component: 'gateway' }),
  });
  late.gateway = gate;
  cleanup.push(() => gate.close());

  const conversations = openConversationStore({
    file: config.brain.conversationsFile,
    historyLimit: config.brain.historyLimit,
    logger: logger.child({ component: 'conversations' }),
  });
  cleanup.push(() => conversations.close());
  const pruner = setInterval(() => conversations.prune(), 3_600_000);
  pruner.unref();
  cleanup.push(() => clearInterval(pruner));

  const offered = new OfferedTools({
    registry,
    policy,
    preflight,
    tags: config.llm,
    logger: logger.child({ component: 'offered-tools' }),
  });
  // an include list that matches no tool at all is said once the tools have settled
  if (planner !== undefined) {
    cleanup.push(watchIncludeTags(registry, config.llm, logger.child({ component: 'llm' })));
  }
  const capabilities = new Capabilities({ intents, registry, policy, preflight, launch, planned });
  const agent = new Agent({
    // the planner's own action answers from the preflight cache; every other call is the gate's
    gate: new JobStatusGate(
      new PreconditionsGate(gate, {
        offered: (caller) => offered.tools(principalOf(caller)),
        preflight,
        specOf: (tool) => registry.tool(tool)?.spec ?? null,
      }),
      { job: (id) => jobs.view(id), specOf: (tool) => registry.tool(tool)?.spec ?? null },
    ),
    intents,
    capabilities: () => capabilities.report(),
    toolSteps: (tool) => capabilities.toolSteps(tool),
    lookupFallback: entityFallback({
      explain: (tool, input) => gate.explain(tool, input),
      namedEntities: () => policy.policy.namedEntities,
    }),
    conversations,
    // a job's end is told to the conversation that submitted it, at its next turn (ADR 0100)
    jobReports: new JobReports({
      audit,
      job: (id) => jobs.view(id),
      conversations,
      specOf: (tool) => registry.tool(tool)?.spec ?? null,
      logger: logger.child({ component: 'job-reports' }),
    }),
    audit: auditSink,
    ...(planner === undefined
      ? {}
      : { planner, plannerTools: (caller) => offered.tools(principalOf(caller)) }),
    maxIterations: config.brain.maxIterations,
    mode: config.llm.mode,
    maxCallsPerRound: config.llm.maxCallsPerRound,
    maxCallsPerTurn: config.llm.maxCallsPerTurn,
    specOf: (tool) => registry.tool(tool)?.spec ?? null,
    preferLocal: config.brain.preferLocal,
    confirmationTtlMs: config.brain.confirmationTtlMs,
    timeZone: config.brain.timeZone,
    onChat: (planner, ms) => metrics.chat(planner, ms),
    logger: logger.child({ component: 'agent' }),
  });
  const core = new BrainServiceAdapter({
    connection,
    registry,
    policy,
    audit,
    auditSink,
    gateway: gate,
    agent,
    preflight,
    jobs,
    known: {
      ...(launch.shipped === undefined ? {} : { shipped: launch.shipped }),
      catalogued: entries.filter((e) => !isPlanned(e)).map((e) => e.name),
      planned: planned.map((p) => p.name),
      trusted: config.brain.trustedWorkers,
    },
    ...(options.model === undefined ? {} : { model: options.model }),
    planned,
    offered: (who) => offered.tools(who),
    capabilities: async () => {
      const report = await capabilities.report();
      const offline = planner === undefined;
      return {
        model: { configured: !offline, steps: offline ? modelSteps(brainRestart(launch)) : [] },
        // without a model the brain tells the time itself; with one, the model does
        ready: offline ? [CLOCK_CAPABILITY, ...report.ready] : [...report.ready],
        missing: report.missing.map((m) => ({ ...m, steps: [...m.steps] })),
        ...(report.planned === undefined ? {} : { planned: [...report.planned] }),
      };
    },
  });

  const app = await buildHttpServer({
    service: core,
    tokens,
    metrics,
    logger: logger.child({ component: 'http' }),
    bodyLimitBytes: config.api.bodyLimitBytes,
    rateLimitPerMinute: config.api.rateLimitPerMinute,
    messageMaxChars: config.brain.messageMaxChars,
    streams: config.api.streams,
  });
  cleanup.push(() => app.close());
  const url = await startHttpServer(app, { host: config.api.host, port: config.api.port });
  logger.info({ url, nats: nc.getServer(), tools: registry.tools().length }, 'brain ready');

  return {
    url,
    natsUrl: nc.getServer(),
    createdTokensFile,
    core,
    registry,
    grantKey: signer?.publicKey,
    recordRestart: async (report) => {
      await auditSink.append(restartAuditEvent(report));
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * Reply binding (ADR 0060), on whenever the brain signs grants: a reply counts only when the
 * key of the instance it names signed it for the call; the registry knows each instance's
 * key from its own INFO subject, and `brain.trusted_workers` pins the keys of a tool.
 */
function replyBinding(config: CaesarConfig, registry: Registry, logger: Logger): ReplyBinding {
  const trusted = config.brain.trustedWorkers;
  logger.info(
    { pinnedTools: Object.keys(trusted) },
    'replies bound to their calls: each must be signed by the instance it names',
  );
  return new ReplyBinding({ instances: registry, trusted });
}

/**
 * The grant signer (ADR 0052): the brain's NKEY identity signs every dispatch. A brain with
 * another kind of identity sends no grants, and says so: workers that require them (the
 * default) refuse its calls with `grant_rejected`.
 */
async function grantSigner(config: CaesarConfig, logger: Logger): Promise<GrantSigner | undefined> {
  const auth = config.busOptions.auth;
  if (auth?.kind !== 'nkey') {
    logger.warn(
      'dispatch grants are not signed: the brain has no NKEY identity (bus.nkey_seed_file), ' +
        'so workers that require grants (worker.require_grant, on by default) refuse its calls, ' +
        "and replies are not checked: a client allowed to publish into the brain's reply inbox " +
        "could answer a call in a worker's place",
    );
    return undefined;
  }
  const { seed } = await readNkeySeed(auth.seedFile);
  const signer = new GrantSigner(seed);
  seed.fill(0);
  logger.info({ brainKey: signer.publicKey }, 'dispatch grants signed with the brain NKEY');
  return signer;
}
