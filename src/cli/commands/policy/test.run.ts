import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  PolicyError,
  parsePolicyCases,
  runPolicyCases,
  type PolicyCaseResult,
} from '../../../policy/index.js';
import { consoleIo, EXIT_USAGE, withPolicy, type PolicyCliIo } from './load.js';
import type { PolicyFileOptions } from './flags.js';

/** `caesar policy test <cases.yaml>`: runs expectations; exit 1 on any mismatch. */
export async function runPolicyTest(
  casesFile: string,
  opts: PolicyFileOptions,
  io: PolicyCliIo = consoleIo,
): Promise<number> {
  const path = resolve(io.cwd ?? process.cwd(), casesFile);
  let cases;
  try {
    cases = parsePolicyCases(await readFile(path, 'utf8'), casesFile);
  } catch (err) {
    io.err(err instanceof PolicyError ? err.message : `cannot read ${casesFile}: ${String(err)}`);
    return EXIT_USAGE;
  }
  return withPolicy(opts, io, (policy) => {
    const results = runPolicyCases(policy, cases);
    const failed = results.filter((r) => !r.passed);
    if (opts.json) {
      const summary = { passed: results.length - failed.length, failed: failed.length, results };
      io.out(JSON.stringify(summary, null, 2));
    } else {
      formatCaseTable(results).forEach((l) => io.out(l));
      io.out(`${results.length - failed.length} passed, ${failed.length} failed (${policy.file})`);
    }
    return failed.length === 0;
  });
}

/** `opa test`-style rows: verdict, case, expected, got (with the rule and, on failure, why). */
function formatCaseTable(results: readonly PolicyCaseResult[]): string[] {
  const width = Math.min(48, Math.max(4, ...results.map((r) => r.name.length)));
  return results.map((r) => {
    const head = `${r.passed ? 'PASS' : 'FAIL'}  ${r.name.padEnd(width)}  expect ${r.expected.padEnd(12)} got ${r.decision.outcome} (${r.decision.rule.id})`;
    return r.passed ? head : `${head}: ${r.mismatch}; ${r.decision.reason}`;
  });
}
