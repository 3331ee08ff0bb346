#!/usr/bin/env node
import { buildProgram } from './program.js';
import { leaveSupervisor, tellSupervisor } from './stack/child.js';

try {
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  process.exitCode = process.exitCode || 1;
  const message = err instanceof Error ? err.message : String(err);
  console.error(`caesar: ${message}`);
  // under `caesar up`: tell the supervisor why, so it can stop instead of restarting
  tellSupervisor({ type: 'fatal', message }, leaveSupervisor);
}
