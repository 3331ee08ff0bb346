import { readFile } from 'node:fs/promises';
import {
  ConfigError,
  toolConfigSections,
  type CaesarConfig,
  type RunningStack,
  type RuntimeInfo,
} from '../../../config/index.js';
import { CaesarError } from '../../../errors/index.js';
import { GrantVerifier, runTools, type AnyToolDefinition } from '../../../legion/index.js';
import { createLogger, type Logger } from '../../../log/index.js';
import { NKEY_USER_PUBLIC_KEY } from '../../../protocol/nkey-shape.js';
import { splitCallable } from '../../../protocol/index.js';
import { deprecatedToolNote } from '../../../../workers/index.js';
import { withIdentity } from '../../program/bus-identity.js';
import { endProcess, EXIT_USAGE } from '../../program/exit.js';
import { reportFailure } from '../../program/fatal.js';
import type { BusFlags } from '../../program/flags.js';
import { loadClientConfig, loadCliConfig } from '../../program/load-config.js';
import { startOwnWatchdog } from '../../stack/own-watchdog.js';
import { joinStackIdentity } from './join-stack.js';
import { loadServedTools } from './module-tools.js';
import { restartsOf, type RestartFlags } from './restart-flags.js';
import {
  leaveSupervisor,
  stopWithSupervisor,
  tellSupervisor,
  underSupervisor,
} from '../../stack/child.js';
import { terminal } from '../../program/terminal.js';

/** `caesar legion serve-tool`'s flags. */
export interface ServeFlags extends BusFlags, RestartFlags {
  host?: string;
  /** Tools of the operator's own, a file path or a package name each (ADR 0055). */
  module?: string[];
  /** Load and check the tools, print their names, exit: no NATS. */
  check?: boolean;
  /** Add each module's tools to the catalog first (ADR 0090). */
  catalog?: boolean;
  /** How long each module may take to import, ms. @default worker.import_timeout */
  importTimeout?: number;
  trustedBrain?: string[];
}

/**
 * Serves the shipped tools `shipped` and each `--module`'s tools over NATS until stopped; under `caesar up`, says when
 * ready, then what each tool's preflight found. With no NATS URL of its own (flag, env,
 * caesar.yaml), it joins the stack running in the data dir, as the client commands find it
 * (runtime.json), under the identity that stack minted for the tool.
 */
export async function serveTool(shipped: string[], flags: ServeFlags): Promise<number> {
  const modules = flags.module ?? [];
  if (modules.length === 0) return serveLoaded(shipped, modules, flags);
  // A module is the operator's code: it may leave timers, sockets or an import that never
  // settles behind it. Whatever it left, the process ends when the command does (the check
  // done, the tools stopped, or why they could not be served said).
  try {
    return await endProcess(await serveLoaded(shipped, modules, flags));
  } catch (err) {
    await reportFailure(err);
    return endProcess(1);
  }
}

/** Loads the tools (each module within its import timeout), then checks or serves them. */
async function serveLoaded(
  shipped: string[],
  modules: string[],
  flags: ServeFlags,
): Promise<number> {
  let tools;
  try {
    const importTimeoutMs = modules.length === 0 ? undefined : await importTimeoutOf(flags);
    const options = importTimeoutMs === undefined ? {} : { importTimeoutMs };
    tools = await loadServedTools(shipped, modules, process.cwd(), options);
  } catch (err) {
    if (!(err instanceof CaesarError && err.code === 'usage')) throw err;
    terminal.err(`caesar legion serve-tool: ${err.message}`);
    return EXIT_USAGE;
  }
  const names = tools.map((t) => t.name);
  await offerCatalog(names, modules, flags);
  if (flags.check === true) {
    // `caesar up` reads this line to mint each module tool's identity before it starts them
    terminal.out(JSON.stringify({ tools: names }));
    return 0;
  }
  return serveDefined(tools, flags, {
    warnings: shipped.flatMap((name) => deprecatedToolNote(name) ?? []),
  });
}

/** What `serveDefined` adds for its caller. */
export interface ServeDefinedExtras {
  /** Warn lines for the worker's log once its logger exists (a deprecated name). */
  readonly warnings?: readonly string[];
  /** The config and logger, when the caller needed them first (serve-mcp). */
  readonly context?: WorkerContext;
}

/** A worker's config (as a client command loads it, runtime.json included) and its logger. */
export interface WorkerContext {
  readonly loaded: Awaited<ReturnType<typeof loadClientConfig>>;
  readonly logger: Logger;
}

/** Loads the config and makes the worker's logger. */
export async function workerContext(flags: ServeFlags): Promise<WorkerContext> {
  const loaded = await loadClientConfig(flags);
  const logger = createLogger({
    level: loaded.config.log.level,
    format: loaded.config.log.format,
    bindings: { component: 'worker' },
  });
  return { loaded, logger };
}

/**
 * Serves defined tools until stopped: the identity (the flags', the config's, or the one a
 * joined stack minted for the tool), the grant check, the watchdog, `caesar up`'s messages.
 * `serve-tool` and `serve-mcp` both end here, so a tool of either is run alike.
 */
export async function serveDefined(
  tools: readonly AnyToolDefinition[],
  flags: ServeFlags,
  extras: ServeDefinedExtras = {},
): Promise<number> {
  const names = tools.map((t) => t.name);
  const { loaded, logger } = extras.context ?? (await workerContext(flags));
  const config = loaded.config;
  const bus = await busOf(config, loaded.stack, names);
  for (const warning of extras.warnings ?? []) logger.warn(warning);
  const grants = await grantsOf(config, flags, loaded.stack);
  // the declaration refused flags that do not go together
  const restarts = restartsOf(flags);
  stopWithSupervisor();
  const watchdog = startOwnWatchdog(config, `worker ${names.join(',')}`, logger);
  let failed = false;
  try {
    return await runTools(tools, {
      bus: { ...bus, name: `caesar-worker ${names.join(',')}` },
      logger,
      host: flags.host ?? config.worker.host,
      config: toolConfigSections(config),
      graceMs: config.worker.graceMs,
      ...(grants ? { grants } : {}),
      ...(restarts.ok && restarts.restarts ? { restarts: restarts.restarts } : {}),
      onReady: (worker) => {
        const instances = worker.instances.map((i) => ({ tool: i.tool, id: i.id, host: i.host }));
        logger.info({ instances }, 'ready');
        watchdog.ready();
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
    await watchdog.stop();
    // An open IPC channel would keep this process alive after the tools stopped.
    if (!failed) leaveSupervisor();
  }
}

/**
 * `--catalog`: the modules' tools go into the catalog. Without it, serving by hand (not under
 * `caesar up`, not `--check`), the exact `caesar catalog add` command on stderr for tools the
 * catalog lacks.
 */
async function offerCatalog(names: string[], modules: string[], flags: ServeFlags): Promise<void> {
  if (modules.length === 0 || underSupervisor()) return;
  const { addModules, catalogStep } = await import('../catalog/catalog.run.js');
  if (flags.catalog === true) {
    await addModules(modules, flags);
    return;
  }
  // `caesar up` checks modules with --check: no step to offer there
  if (flags.check === true) return;
  const step = await catalogStep(names, modules, flags);
  if (step !== undefined) terminal.err(step);
}

/** `--import-timeout`, else `worker.import_timeout` (caesar.yaml, env). */
async function importTimeoutOf(flags: ServeFlags): Promise<number> {
  return flags.importTimeout ?? (await loadCliConfig(flags)).worker.importTimeoutMs;
}

/**
 * The bus options: the config's, except that a running stack's operator seed (which the
 * runtime.json layer supplies with the stack's URL) gives way to the worker identity the stack
 * minted for the tool: a worker never runs with the operator's unrestricted key. A module's
 * tool the stack has none for gets one minted in the stack now (ADR 0071).
 * @throws {Error} when these tools are several (one identity serves one tool)
 * @throws {StackJoinError} when the stack cannot take a new identity
 */
async function busOf(
  config: CaesarConfig,
  stack: RunningStack,
  names: string[],
): Promise<CaesarConfig['busOptions']> {
  const bus = config.busOptions;
  const info = joinedStack(config, stack);
  if (info?.nats_seed_file === undefined) return bus;
  // the actions of one tool share its identity (ADR 0092)
  const served = [...new Set(names.map((n) => splitCallable(n).tool))];
  if (served.length !== 1) {
    throw new Error(
      `the stack in ${info.data_dir} (pid ${info.pid}) gives each worker an identity for one ` +
        `tool, not one for ${names.join(' + ')}: serve one tool per process, or pass ` +
        '--nkey-seed-file with an identity from `caesar legion identity new <name> --tools …`',
    );
  }
  const tool = served[0]!;
  const seedFile = info.tool_seed_files?.[tool] ?? (await joinStackIdentity(info, tool));
  return { ...bus, auth: { kind: 'nkey', seedFile } };
}

/**
 * The grant check (ADR 0052): the brains `worker.trusted_brains`, `--trusted-brain` and a
 * joined stack's runtime.json (`brain_key`) name. With `worker.require_grant: false` there is
 * none, and serveTools says so at start.
 * @throws {ConfigError} when grants are required and no brain is trusted, or a key is bad
 */
async function grantsOf(
  config: CaesarConfig,
  flags: ServeFlags,
  stack: RunningStack,
): Promise<GrantVerifier | undefined> {
  if (!config.worker.requireGrant) return undefined;
  const trusted = [...config.worker.trustedBrains];
  for (const given of flags.trustedBrain ?? []) trusted.push(await brainKeyOf(given));
  const joined = joinedStack(config, stack)?.brain_key;
  if (joined !== undefined) trusted.push(joined);
  if (trusted.length === 0) {
    throw new ConfigError([
      {
        source: 'worker.trusted_brains',
        path: 'worker.trusted_brains',
        message:
          'no brain is trusted, and worker.require_grant is on: this worker would refuse every ' +
          "call. Pass --trusted-brain with the brain's public key (or its <name>.pub file from " +
          '`caesar legion identity new <name> --brain`), or set CAESAR_WORKER__TRUSTED_BRAINS; ' +
          'CAESAR_WORKER__REQUIRE_GRANT=false runs without grants (docs/security.md)',
      },
    ]);
  }
  try {
    return new GrantVerifier({ trusted: [...new Set(trusted)] });
  } catch (err) {
    const message = (err as Error).message;
    throw new ConfigError([
      { source: 'worker.trusted_brains', path: 'worker.trusted_brains', message },
    ]);
  }
}

/**
 * The running stack this worker joins: the one whose runtime.json supplied the bus settings
 * (its operator seed, or none when `embedded.nats_config` manages auth); undefined when the
 * worker's NATS settings are its own.
 */
function joinedStack(config: CaesarConfig, stack: RunningStack): RuntimeInfo | undefined {
  const auth = config.busOptions.auth;
  const seed = auth?.kind === 'nkey' ? auth.seedFile : undefined;
  return stack.info?.nats_seed_file === seed ? stack.info : undefined;
}

/** A public key as given, or read from the file `given` names. */
async function brainKeyOf(given: string): Promise<string> {
  if (NKEY_USER_PUBLIC_KEY.test(given)) return given;
  let text: string;
  try {
    text = (await readFile(given, 'utf8')).trim();
  } catch (err) {
    throw new Error(
      `--trusted-brain ${given}: neither a public key (U…) nor a readable file ` +
        `(${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      { cause: err },
    );
  }
  if (!NKEY_USER_PUBLIC_KEY.test(text)) {
    throw new Error(
      `--trusted-brain ${given}: the file does not hold an NKEY public key (U…); ` +
        "give the brain's <name>.pub, never its seed",
    );
  }
  return text;
}
