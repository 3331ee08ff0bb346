#!/usr/bin/env node
import { buildProgram } from './program.js';

try {
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  process.exitCode = process.exitCode || 1;
  console.error(`caesar: ${err instanceof Error ? err.message : String(err)}`);
}
