import { createHash } from 'node:crypto';
import { compilePolicy } from './compile.js';
import type { CompiledPolicy } from './compiled.js';

/** `file` of the policy used when no policy file is configured. */
export const NO_POLICY_FILE = '(no policy file)';

/** The reason every call gets when no policy file is configured. */
export const NOT_CONFIGURED_REASON =
  'no policy file is configured, so every tool call is denied; to enable a policy, set policy.file in caesar.yaml (or CAESAR_POLICY__FILE) to a policy file such as policy/policy.yaml (see docs/policy.md)';

/** A policy that denies every call, saying how to configure one. */
export function unconfiguredPolicy(): CompiledPolicy {
  const sha256 = createHash('sha256').update('').digest('hex');
  const empty = compilePolicy('', { file: NO_POLICY_FILE, sha256 });
  return {
    ...empty,
    warnings: [{ path: '', line: 1, column: 1, message: NOT_CONFIGURED_REASON }],
    denyAllReason: NOT_CONFIGURED_REASON,
  };
}
