// Runs the `caesar audit ...` command group as a real process, straight from the TypeScript
// sources (no build), the way src/cli/main.ts runs the full CLI. Start it with
// `node --import ./test/helpers/audit-ts-register.mjs test/helpers/audit-cli.mjs audit ...`.

import { Command } from 'commander';

const { register } = await import('../../src/cli/commands/audit.ts');
const program = new Command('caesar').showHelpAfterError();
register(program);
try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.exitCode = process.exitCode || 1;
  process.stderr.write(`caesar: ${err instanceof Error ? err.message : String(err)}\n`);
}
