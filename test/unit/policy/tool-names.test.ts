import { describe, expect, test } from 'vitest';
import { formatIssue, unknownToolWarnings } from '../../../src/policy/index.js';
import { PLANNED } from '../../../src/policy/tool-names.js';
import { engineOf, policyOf, tool } from './helpers.js';

const SHIPPED = ['calculator', 'calendar_read', 'call_service', 'ha_entities', 'web_search'];

const MISSPELT = [
  'version: 1',
  'allowed_tools:',
  '  - tool: web_search',
  '  - tool: calculater',
  '  - ha_entitys',
  'denied_tools:',
  '  - tool: shell_exec',
].join('\n');

describe('tools the policy names that no one knows', () => {
  test('a misspelt tool gets a warning at its name, with the closest known tool', () => {
    const warnings = unknownToolWarnings(policyOf(MISSPELT).toolMentions, SHIPPED);
    expect(warnings.map((w) => formatIssue('policy.yaml', w))).toEqual([
      "policy.yaml:4:11: allowed_tools[1].tool: 'calculater' is served by no worker and listed in no catalog; did you mean 'calculator'?",
      "policy.yaml:5:5: allowed_tools[2].tool: 'ha_entitys' is served by no worker and listed in no catalog; did you mean 'ha_entities'?",
      "policy.yaml:7:11: denied_tools[0].tool: 'shell_exec' is served by no worker and listed in no catalog; known tools: calculator, calendar_read, call_service, ha_entities, web_search",
    ]);
  });

  test('a tool some worker serves is known, whatever the catalog says', () => {
    const live = [...SHIPPED, 'calculater', 'ha_entitys', 'shell_exec'];
    expect(unknownToolWarnings(policyOf(MISSPELT).toolMentions, live)).toEqual([]);
  });

  test('the caller says what unknown means where it asks', () => {
    const [first] = unknownToolWarnings(policyOf(MISSPELT).toolMentions, SHIPPED, {
      unknown: 'is no shipped tool',
    });
    expect(first?.message).toBe("'calculater' is no shipped tool; did you mean 'calculator'?");
  });

  test("a known tool.action makes its tool's name known (ADR 0092)", () => {
    const policy = policyOf(
      'allowed_tools:\n  - tool: home_assistant\n  - home_assistant.entities\n',
    );
    expect(unknownToolWarnings(policy.toolMentions, ['home_assistant.entities'])).toEqual([]);
  });

  test('a rule naming a planned stub says it is planned, not callable yet, and not unknown', () => {
    const policy = policyOf('allowed_tools:\n  - tool: hpc_solver\n  - tool: hpc_solvr\n');
    const warnings = unknownToolWarnings(policy.toolMentions, SHIPPED, {
      planned: ['hpc_solver'],
    });
    expect(warnings.map((w) => formatIssue('policy.yaml', w))).toEqual([
      "policy.yaml:2:11: allowed_tools[0].tool: 'hpc_solver' is planned in the catalog: not callable yet, no worker serves it; the rule applies once one does",
      // a misspelling is pointed at the stub the operator wrote down
      "policy.yaml:3:11: allowed_tools[1].tool: 'hpc_solvr' is served by no worker and listed in no catalog; did you mean 'hpc_solver'?",
    ]);
  });

  test("a planned tool.action stub plans its tool's name; a worker serving a stub wins", () => {
    const policy = policyOf('allowed_tools:\n  - tool: em\n    actions: [run_fdtd]\n  - em\n');
    const planned = { planned: ['em.run_fdtd'] };
    const warnings = unknownToolWarnings(policy.toolMentions, SHIPPED, planned);
    expect(warnings.map((w) => w.message)).toEqual([`'em.run_fdtd' ${PLANNED}`, `'em' ${PLANNED}`]);
    expect(unknownToolWarnings(policy.toolMentions, ['em.run_fdtd'], planned)).toEqual([]);
  });

  test('a policy that loads with unknown tools still loads: the warning is not a load error', () => {
    expect(policyOf(MISSPELT).rules).toHaveLength(4);
  });

  test("a denied call of the near-miss's real name points at the misspelt rule", () => {
    const { engine } = engineOf(MISSPELT);
    expect(engine.evaluate(tool('calculator')).reason).toBe(
      "tool 'calculator' is not on the allow-list: no allowed_tools entry in policy.yaml matches it; " +
        "allowed_tools lists 'calculater' (line 4): did you mean calculator? correct it there",
    );
  });

  test('a denied call with no near-miss keeps the add-it step', () => {
    const { engine } = engineOf(MISSPELT);
    expect(engine.evaluate(tool('file_write')).reason).toMatch(
      /; to allow it, add "- file_write" under allowed_tools there$/,
    );
  });
});
