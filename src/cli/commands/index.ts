import type { Command } from 'commander';
import { register as registerAudit } from './audit/index.js';
import { register as registerBrain } from './brain.js';
import { register as registerCatalog } from './catalog/index.js';
import { register as registerChat } from './chat/index.js';
import { register as registerConfig } from './config.js';
import { register as registerConfirm } from './confirm.js';
import { register as registerInvoke } from './invoke.js';
import { register as registerJobs } from './jobs.js';
import { register as registerLegion } from './legion/index.js';
import { register as registerMcp } from './mcp.js';
import { register as registerNats } from './nats.js';
import { register as registerPolicy } from './policy/index.js';
import { register as registerUp } from './up.js';

/**
 * Each command lives in its own file (`up.ts`, `invoke.ts`), a command with subcommands in
 * its own folder with one file per subcommand (`audit/query.ts`); each exports
 * `register(program)`. This list is the one place that wires them in.
 */
export function registerCommandGroups(program: Command): void {
  registerUp(program);
  registerBrain(program);
  registerLegion(program);
  registerCatalog(program);
  registerNats(program);
  registerPolicy(program);
  registerAudit(program);
  registerChat(program);
  registerInvoke(program);
  registerConfirm(program);
  registerJobs(program);
  registerMcp(program);
  registerConfig(program);
}
