import {
  flowSummary,
  formatPolicySummary,
  unknownToolWarnings,
  type CompiledPolicy,
} from '../../../policy/index.js';
import { shippedToolNames } from '../../../../workers/index.js';
import { consoleIo, EXIT_USAGE, withPolicy, type PolicyCliIo } from './load.js';
import type { PolicyCheckOptions } from './flags.js';

/**
 * What the offline check says of a tool that is not shipped: it cannot see workers of the
 * operator's own (`worker.modules`, another host); the running brain can.
 */
const NOT_SHIPPED =
  'is not a shipped tool (an offline check; `caesar policy status` also knows the running workers)';

/**
 * `caesar policy check [file]`: loads the policy and reports problems with file:line:column.
 * Warnings (a rule that never applies, a tool no shipped worker serves) leave the exit code
 * 0; `--strict` makes them exit 1.
 */
export async function runPolicyCheck(
  file: string | undefined,
  opts: PolicyCheckOptions,
  io: PolicyCliIo = consoleIo,
): Promise<number> {
  if (file !== undefined && opts.policy !== undefined && file !== opts.policy) {
    io.err('caesar policy check: give the policy file as an argument or as --policy, not both');
    return EXIT_USAGE;
  }
  return withPolicy({ ...opts, policy: file ?? opts.policy }, io, (loaded) => {
    const checked = withToolWarnings(loaded);
    if (opts.json) {
      const { file: path, sha256, rules, warnings } = checked;
      const flow = flowSummary(checked);
      io.out(JSON.stringify({ ok: true, file: path, sha256, rules, flow, warnings }, null, 2));
    } else {
      formatPolicySummary(checked).forEach((l) => io.out(l));
    }
    return opts.strict !== true || checked.warnings.length === 0;
  });
}

/** The policy with a warning for each tool it names that no shipped worker serves. */
function withToolWarnings(policy: CompiledPolicy): CompiledPolicy {
  const tools = unknownToolWarnings(policy.toolMentions, shippedToolNames(), NOT_SHIPPED);
  if (tools.length === 0) return policy;
  const warnings = [...policy.warnings, ...tools].sort(
    (a, b) => a.line - b.line || a.column - b.column,
  );
  return { ...policy, warnings };
}
