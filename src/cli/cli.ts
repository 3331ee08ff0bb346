import { buildProgram } from './program.js';
import { leaveSupervisor, tellSupervisor } from './stack/child.js';
import { terminal } from './terminal.js';

// `caesar` itself: the command tree, run on this process's arguments, and a failure reported
// on stderr (and to `caesar up`, when it runs this process). `main.ts` runs it, from the
// build's bundle when there is a fresh one (ADR 0047).

try {
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  process.exitCode = process.exitCode || 1;
  const message = err instanceof Error ? err.message : String(err);
  terminal.err(`caesar: ${message}`);
  // under `caesar up`: tell the supervisor why, so it can stop instead of restarting
  tellSupervisor({ type: 'fatal', message }, leaveSupervisor);
}
