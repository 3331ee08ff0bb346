import { reportFailure } from './fatal.js';
import { buildProgram } from './program.js';

// `caesar` itself: the command tree, run on this process's arguments, and a failure reported
// on stderr (and to `caesar up`, when it runs this process). `main.ts` runs it, from the
// build's bundle when there is a fresh one (ADR 0047).

try {
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  await reportFailure(err);
}
