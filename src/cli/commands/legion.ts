import type { Command } from 'commander';
import { connectBus } from '../../bus/index.js';
import { toolConfigSections } from '../../config/index.js';
import { createLogger } from '../../log/index.js';
import { runTools } from '../../legion/index.js';
import { brainPermissions, workerPermissions } from '../../protocol/index.js';
import { loadShippedTools, shippedToolNames } from '../../../workers/index.js';
import { addBusFlags, type BusFlags } from '../flags.js';
import { loadClientConfig, loadCliConfig } from '../load-config.js';
import { printInstancesTable, listTools } from '../legion-list.js';
import { leaveSupervisor, stopWithSupervisor, tellSupervisor } from '../stack/child.js';

interface ServeFlags extends BusFlags {
  host?: string;
}

export function register(program: Command): void {
  const legion = program.command('legion').description('run and inspect tool workers');

  addBusFlags(
    legion
      .command('serve-tool')
      .description(`serve one or more shipped tools over NATS (${shippedToolNames().join(', ')})`)
      .argument('<name...>', 'tool names')
      .option('--host <name>', 'host name reported to the brain (default: this host)'),
  ).action(async (names: string[], flags: ServeFlags) => {
    process.exitCode = await serveTool(names, flags);
  });

  addBusFlags(
    legion
      .command('list')
      .description('list the tools and instances connected to NATS')
      .option('--json', 'print a JSON array instead of a table')
      .option('--wait <ms>', 'how long to collect discovery replies', '500'),
  ).action(async (flags: BusFlags & { json?: boolean; wait: string }) => {
    // No --nats-url and no configured URL: the running stack's, from <data-dir>/runtime.json,
    // as the operator identity its embedded server was started with.
    const { config } = await loadClientConfig(flags);
    const nc = await connectBus({ ...config.busOptions, name: 'caesar-cli' });
    try {
      const tools = await listTools(nc, Number(flags.wait));
      if (flags.json) console.log(JSON.stringify(tools, null, 2));
      else printInstancesTable(tools);
    } finally {
      await nc.close();
    }
  });

  legion
    .command('permissions')
    .description(
      'print the least-privilege nats-server permissions for a worker host, or for the brain',
    )
    .argument('[tool...]', 'the tools this host serves')
    .option(
      '--brain [identity]',
      "the brain's permissions instead; run it with --inbox-identity <identity> (default brain)",
    )
    .action((tools: string[], flags: { brain?: string | true }) => {
      if (flags.brain !== undefined) {
        if (tools.length > 0) throw new Error('give either tool names or --brain, not both');
        const identity = flags.brain === true ? 'brain' : flags.brain;
        console.log(`permissions: ${JSON.stringify(brainPermissions(identity), null, 2)}`);
        return;
      }
      if (tools.length === 0) throw new Error('name the tools this host serves, or pass --brain');
      console.log(`permissions: ${JSON.stringify(workerPermissions(tools), null, 2)}`);
    });
}

async function serveTool(names: string[], flags: ServeFlags): Promise<number> {
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
        tellSupervisor({ type: 'worker_ready', instances });
      },
    });
  } catch (err) {
    // leave the IPC channel to main.ts, which tells the supervisor why before it closes it
    failed = true;
    throw err;
  } finally {
    // An open IPC channel would keep this process alive after the tools stopped.
    if (!failed) leaveSupervisor();
  }
}
