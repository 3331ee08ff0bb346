import {
  compilePolicy,
  PolicyEngine,
  PolicyLoadError,
  type CompiledPolicy,
  type ToolCall,
} from '../../../src/policy/index.js';
import type { PolicyIssue } from '../../../src/policy/issues.js';

/** The issues of an inline policy that must be refused (as `policy.yaml`). */
export function issuesOf(yaml: string): readonly PolicyIssue[] {
  try {
    compilePolicy(yaml, { file: 'policy.yaml' });
  } catch (err) {
    if (err instanceof PolicyLoadError) return err.issues;
    throw err;
  }
  throw new Error('expected the policy to be refused');
}

/** Compiles an inline policy (as `policy.yaml`). */
export function policyOf(yaml: string): CompiledPolicy {
  return compilePolicy(yaml, { file: 'policy.yaml' });
}

/** An engine over an inline policy with a manual clock (starts at 0). */
export function engineOf(yaml: string): { engine: PolicyEngine; clock: { now: number } } {
  const clock = { now: 0 };
  return { engine: new PolicyEngine(policyOf(yaml), { now: () => clock.now }), clock };
}

/** A service call from `domain.service`, target and data. */
export function svc(key: string, target?: unknown, data?: unknown): ToolCall {
  const [domain = '', service = ''] = key.split('.');
  return { domain, service, target: target as never, data: data as never };
}

/** A generic tool call. */
export function tool(name: string, input: unknown = {}): ToolCall {
  return { tool: name, input };
}
