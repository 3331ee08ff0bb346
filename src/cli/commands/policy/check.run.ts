import { flowSummary, formatPolicySummary } from '../../../policy/index.js';
import {
  consoleIo,
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
  loadPolicy,
  type PolicyCliIo,
} from './load.js';
import type { PolicyFileOptions } from './flags.js';

/** `caesar policy check [file]`: loads the policy and reports problems with file:line:column. */
export async function runPolicyCheck(
  file: string | undefined,
  opts: PolicyFileOptions,
  io: PolicyCliIo = consoleIo,
): Promise<number> {
  if (file !== undefined && opts.policy !== undefined && file !== opts.policy) {
    io.err('caesar policy check: give the policy file as an argument or as --policy, not both');
    return EXIT_USAGE;
  }
  const loaded = await loadPolicy({ ...opts, policy: file ?? opts.policy }, io);
  if (loaded === null) return EXIT_FAILED;
  if (opts.json) {
    const { file: path, sha256, rules, warnings } = loaded;
    const flow = flowSummary(loaded);
    io.out(JSON.stringify({ ok: true, file: path, sha256, rules, flow, warnings }, null, 2));
  } else {
    formatPolicySummary(loaded).forEach((l) => io.out(l));
  }
  return EXIT_OK;
}
