import { describe, expect, test } from 'vitest';
import { policyWarnings } from '../../../../src/brain/capabilities/known-tools.js';
import { compilePolicy } from '../../../../src/policy/index.js';

// Issue 31 (ADR 0090): the brain's policy warnings know the catalog. A tool the catalog lists
// with a module or a host is no unknown name, whether or not its worker runs yet; a rule
// naming a planned stub says the tool is planned, not callable yet.

const POLICY = compilePolicy(
  [
    'allowed_tools:',
    '  - calculator',
    '  - weather',
    '  - hpc_solver',
    '  - tool: shell_exec',
  ].join('\n'),
  { file: 'policy.yaml' },
);
const NONE_LIVE = { tools: () => [] };

describe('policyWarnings', () => {
  test('catalogued tools are known, planned stubs are told as planned', () => {
    const warnings = policyWarnings(POLICY, {
      registry: NONE_LIVE,
      shipped: ['calculator'],
      catalogued: ['weather'],
      planned: ['hpc_solver'],
      trusted: {},
    });
    expect(warnings.map((w) => `${w.path}: ${w.message}`)).toEqual([
      "allowed_tools[2].tool: 'hpc_solver' is planned in the catalog: not callable yet, no worker serves it; the rule applies once one does",
      "allowed_tools[3].tool: 'shell_exec' is served by no worker and listed in no catalog; known tools: calculator, hpc_solver, weather",
    ]);
  });

  test('without the catalog, its tools are unknown names', () => {
    const warnings = policyWarnings(POLICY, {
      registry: NONE_LIVE,
      shipped: ['calculator'],
      trusted: {},
    });
    expect(warnings.map((w) => w.path)).toEqual([
      'allowed_tools[1].tool',
      'allowed_tools[2].tool',
      'allowed_tools[3].tool',
    ]);
  });

  test('a live worker serving a planned stub makes it a tool like any other', () => {
    const warnings = policyWarnings(POLICY, {
      registry: { tools: () => [{ name: 'hpc_solver' }, { name: 'shell_exec' }] },
      shipped: ['calculator'],
      catalogued: ['weather'],
      planned: ['hpc_solver'],
      trusted: {},
    });
    expect(warnings).toEqual([]);
  });
});
