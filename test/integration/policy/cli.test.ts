import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EXIT_FAILED, EXIT_OK, type PolicyCliIo } from '../../../src/cli/commands/policy/load.js';
import { EXIT_USAGE } from '../../../src/cli/program/exit.js';
import { catalogPath, plannedEntry, writeCatalog } from '../../../src/legion/catalog/index.js';
import { runPolicyCheck } from '../../../src/cli/commands/policy/check.run.js';
import { runPolicyExplain } from '../../../src/cli/commands/policy/explain.run.js';
import { runPolicyTest } from '../../../src/cli/commands/policy/test.run.js';
import { PolicyDecisionSchema } from '../../../src/policy/decision.js';
import { writeTokensFile } from '../../helpers/tokens.js';
import { MAX_NESTING_DEPTH } from '../../../src/text/index.js';

const run = promisify(execFile);

const GOOD = `version: 1
allowed_services:
  - service: light.turn_on
    id: lights
    target: {entity_id: light.kitchen}
allowed_tools:
  - calculator
  - tool: web_search
    input: {domain_allowlist: [en.wikipedia.org]}
`;
const BAD = 'version: 1\nallowed_tools:\n  - tool: calculator\n    confrim: true\n';

let dir: string;
const path = (name: string) => join(dir, name);

function collector(cwd?: string): PolicyCliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (l) => stdout.push(l),
    err: (l) => stderr.push(l),
    // No CAESAR_* variables from the environment running the tests.
    env: {},
    ...(cwd ? { cwd } : {}),
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-policy-cli-'));
  await writeFile(path('good.yaml'), GOOD);
  await writeFile(path('bad.yaml'), BAD);
  await writeFile(
    path('cases.yaml'),
    'cases:\n  - {name: calc, call: {tool: calculator}, expect: allow}\n  - {name: wrong, call: {tool: shell}, expect: allow}\n',
  );
  await writeFile(path('shadowed.yaml'), 'allowed_tools:\n  - calculator\n  - calculator\n');
  await writeFile(
    path('misspelt.yaml'),
    'allowed_tools:\n  - tool: web_search\n  - tool: calculater\n',
  );
  await mkdir(path('configured'));
  await writeFile(path('configured/caesar.yaml'), `policy:\n  file: ${path('good.yaml')}\n`);
  await writeFile(
    path('passing.yaml'),
    'cases:\n  - {name: calc, call: {tool: calculator}, expect: allow}\n',
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('caesar policy check', () => {
  test('prints a summary of the rules and exits 0 for a valid policy', async () => {
    const io = collector();
    expect(await runPolicyCheck(path('good.yaml'), {}, io)).toBe(EXIT_OK);
    expect(io.stdout[0]).toMatch(/good\.yaml: ok, 3 rules \(sha256 [0-9a-f]{64}\)/);
    expect(io.stdout[1]).toContain(
      'allowed_services 1, denied_services 0, allowed_tools 2, denied_tools 0',
    );
  });

  test('takes the file as an argument or as --policy', async () => {
    expect(await runPolicyCheck(undefined, { policy: path('good.yaml') }, collector())).toBe(
      EXIT_OK,
    );
    const both = collector();
    expect(await runPolicyCheck(path('good.yaml'), { policy: path('bad.yaml') }, both)).toBe(
      EXIT_USAGE,
    );
    expect(both.stderr[0]).toMatch(/not both/);
  });

  test('prints each problem as file:line:column and exits 1 for an invalid policy', async () => {
    const io = collector();
    expect(await runPolicyCheck(path('bad.yaml'), {}, io)).toBe(EXIT_FAILED);
    expect(io.stderr).toContain(
      `${path('bad.yaml')}:4:5: allowed_tools[0].confrim: unknown key 'confrim' (did you mean 'confirm'?)`,
    );
  });

  test('warns about shadowed and duplicate rules', async () => {
    const io = collector();
    expect(await runPolicyCheck(path('shadowed.yaml'), {}, io)).toBe(EXIT_OK);
    expect(io.stdout).toContain(
      `warning: ${path('shadowed.yaml')}:3:5: allowed_tools[1]: duplicate rule: allowed_tools[0] says the same`,
    );
    expect(io.stdout).toContain(
      `warning: ${path('shadowed.yaml')}:3:5: allowed_tools[1]: never used for calculator: allowed_tools[0] already allows every such call`,
    );
  });

  test('warns about a tool no shipped worker serves, with the closest, and still exits 0', async () => {
    const io = collector();
    expect(await runPolicyCheck(path('misspelt.yaml'), {}, io)).toBe(EXIT_OK);
    expect(io.stdout[0]).toMatch(/misspelt\.yaml: ok, 2 rules/);
    expect(io.stdout).toContain(
      `warning: ${path('misspelt.yaml')}:3:11: allowed_tools[1].tool: 'calculater' is neither a shipped tool nor in the catalog ` +
        "(an offline check; `caesar policy status` also knows the running workers); did you mean 'calculator'?",
    );
    const json = collector();
    expect(await runPolicyCheck(path('misspelt.yaml'), { json: true }, json)).toBe(EXIT_OK);
    const parsed = JSON.parse(json.stdout.join('\n')) as { warnings: { path: string }[] };
    expect(parsed.warnings.map((w) => w.path)).toEqual(['allowed_tools[1].tool']);
  });

  // Issue 31 (ADR 0090): the catalog in the data dir, read without importing its modules
  test('a tool the catalog lists is known; a planned stub is told as planned, not unknown', async () => {
    const dataDir = path('catalogued');
    await mkdir(dataDir, { recursive: true });
    await writeCatalog(catalogPath(dataDir), {
      version: 1,
      tools: [
        {
          name: 'weather',
          purpose: 'Current weather for a city.',
          location: 'host',
          capability: 'current_weather',
          module: 'weather',
          version: '1.0.0',
          tags: ['tool', 'web'],
          spec_sha256: '',
        },
        plannedEntry('hpc_solver', 'Run FDTD jobs on the cluster', { tags: ['hpc'] }),
      ],
    });
    const policy = path('catalogued.yaml');
    await writeFile(policy, 'allowed_tools:\n  - weather\n  - tool: hpc_solver\n  - wether\n');
    const io = collector();
    expect(await runPolicyCheck(policy, { dataDir }, io)).toBe(EXIT_OK);
    expect(io.stdout.filter((l) => l.startsWith('warning: '))).toEqual([
      `warning: ${policy}:3:11: allowed_tools[1].tool: 'hpc_solver' is planned in the catalog: not callable yet, no worker serves it; the rule applies once one does`,
      `warning: ${policy}:4:5: allowed_tools[2].tool: 'wether' is neither a shipped tool nor in the catalog ` +
        "(an offline check; `caesar policy status` also knows the running workers); did you mean 'weather'?",
    ]);
  });

  test('a catalog that does not load fails the check, naming the file and the field', async () => {
    const dataDir = path('broken-catalog');
    await mkdir(dataDir, { recursive: true });
    await writeFile(catalogPath(dataDir), 'version: 1\ntools:\n  - name: weather\n');
    const io = collector();
    expect(await runPolicyCheck(path('good.yaml'), { dataDir }, io)).toBe(EXIT_FAILED);
    expect(io.stderr.join('\n')).toContain(
      `${catalogPath(dataDir)}:3:5: tools[0].purpose (entry 'weather')`,
    );
  });

  test('--strict exits 1 when the policy loads with warnings, 0 when it has none', async () => {
    expect(await runPolicyCheck(path('misspelt.yaml'), { strict: true }, collector())).toBe(
      EXIT_FAILED,
    );
    expect(await runPolicyCheck(path('good.yaml'), { strict: true }, collector())).toBe(EXIT_OK);
  });

  test('--json prints the rules or the issues', async () => {
    const ok = collector();
    await runPolicyCheck(path('good.yaml'), { json: true }, ok);
    expect(JSON.parse(ok.stdout.join('\n'))).toMatchObject({
      ok: true,
      rules: [{ ref: { id: 'lights' } }, {}, {}],
    });
    const bad = collector();
    await runPolicyCheck(undefined, { policy: path('bad.yaml'), json: true }, bad);
    expect(JSON.parse(bad.stdout.join('\n'))).toMatchObject({
      ok: false,
      error: { code: 'policy_invalid', issues: [{ line: 4 }] },
    });
  });

  test('without a file it checks the configured policy (policy.file of caesar.yaml)', async () => {
    const io = collector(path('configured'));
    expect(await runPolicyCheck(undefined, {}, io)).toBe(EXIT_OK);
    expect(io.stdout[0]).toContain(path('good.yaml'));
    const flag = collector();
    expect(await runPolicyCheck(undefined, { config: path('configured/caesar.yaml') }, flag)).toBe(
      EXIT_OK,
    );
    expect(flag.stdout[0]).toContain(path('good.yaml'));
  });

  test('with no config at all it checks <data_dir>/policy.yaml, the copy caesar up makes', async () => {
    const io = collector(dir);
    expect(await runPolicyCheck(undefined, {}, io)).toBe(EXIT_FAILED);
    expect(io.stderr[0]).toContain(join(dir, 'var', 'policy.yaml'));
    const seeded = collector(path('seeded'));
    await mkdir(path('seeded/var'), { recursive: true });
    await copyFile('policy/policy.yaml', path('seeded/var/policy.yaml'));
    expect(await runPolicyCheck(undefined, {}, seeded)).toBe(EXIT_OK);
    expect(seeded.stdout[0]).toContain(path('seeded/var/policy.yaml'));
  });

  test('a config file that does not load is reported, exit 1', async () => {
    const io = collector();
    expect(await runPolicyCheck(undefined, { config: path('nope/caesar.yaml') }, io)).toBe(
      EXIT_FAILED,
    );
    expect(io.stderr.join('\n')).toMatch(/caesar\.yaml/);
  });
});

describe('caesar policy check and explain with entity rules', () => {
  const ENTITIES = `version: 1
allowed_services: [homeassistant.turn_on]
denied_services: ['cover.*']
denied_entities:
  - id: keep-cold
    entity_id: [switch.fridge]
`;

  test('check counts denied_entities beside the other lists', async () => {
    await writeFile(path('entities.yaml'), ENTITIES);
    const io = collector();
    expect(await runPolicyCheck(path('entities.yaml'), {}, io)).toBe(EXIT_OK);
    expect(io.stdout[1]).toBe(
      '  allowed_services 1, denied_services 1, allowed_tools 0, denied_tools 0, denied_entities 1',
    );
  });

  test('explain names the target that matched and the rule with its file:line', async () => {
    await writeFile(path('entities.yaml'), ENTITIES);
    const io = collector();
    const json = '{"target": {"entity_id": ["light.hall", "switch.fridge"]}}';
    const opts = { policy: path('entities.yaml') };
    expect(await runPolicyExplain('homeassistant.turn_on', json, opts, io)).toBe(EXIT_OK);
    expect(io.stdout[0]).toMatch(/^DENY {2}keep-cold \(.*entities\.yaml:5:5 in policy sha256/);
    expect(io.stdout).toContain('target: switch.fridge (Home Assistant runs it as switch.turn_on)');
    expect(io.stdout.join('\n')).toMatch(
      /matched {5}keep-cold \(.*entities\.yaml:5:5 .*\) on switch\.fridge/,
    );
  });
});

describe('caesar policy check and explain with flow rules', () => {
  const FLOW = `version: 1
flow:
  after_private: allow
allowed_services:
  - service: light.turn_on
    id: lights
    after_untrusted: allow
allowed_tools:
  - tool: web_search
    id: search
    after_private: deny
  - calculator
`;

  test('check lists each gate with where it was set, and every rule that accepts a risk', async () => {
    await writeFile(path('flow.yaml'), FLOW);
    const io = collector();
    expect(await runPolicyCheck(path('flow.yaml'), {}, io)).toBe(EXIT_OK);
    const at = (pos: string) =>
      `${path('flow.yaml')}:${pos} in policy sha256 ${io.stdout[0]?.match(/sha256 ([0-9a-f]{12})/)?.[1]}`;
    expect(io.stdout.slice(2)).toEqual([
      '  flow: after_untrusted confirm (flow default)',
      `        after_private allow (flow.after_private (${at('3:3')}))`,
      '        private_match any (flow default)',
      `  accepts a risk: after_private: allow on every allow rule without its own after_private, set by flow.after_private (${at('3:3')})`,
      `  accepts a risk: after_untrusted: allow on lights, set by lights (${at('7:5')})`,
    ]);
  });

  test("check --json gives the flow settings, the accepted risks and each rule's own keys", async () => {
    await writeFile(path('flow.yaml'), FLOW);
    const io = collector();
    expect(await runPolicyCheck(path('flow.yaml'), { json: true }, io)).toBe(EXIT_OK);
    const out = JSON.parse(io.stdout.join('\n')) as {
      flow: unknown;
      rules: { ref: { id: string }; flow?: unknown }[];
    };
    expect(out.flow).toMatchObject({
      after_untrusted: { action: 'confirm', set_by: 'flow default' },
      after_private: { action: 'allow' },
      private_match: { value: 'any', set_by: 'flow default' },
      accepted_risks: [
        { gate: 'after_private', rule: null },
        { gate: 'after_untrusted', rule: 'lights' },
      ],
    });
    expect(out.rules.find((r) => r.ref.id === 'search')?.flow).toEqual([
      { gate: 'after_private', action: 'deny', set_by: expect.stringContaining('flow.yaml:11:5') },
    ]);
    expect(out.rules.find((r) => r.ref.id === 'allowed_tools[1]')?.flow).toBeUndefined();
  });

  test('the shipped policy turns both gates on and accepts no risk', async () => {
    const io = collector();
    expect(await runPolicyCheck('policy/policy.yaml', { json: true }, io)).toBe(EXIT_OK);
    const out = JSON.parse(io.stdout.join('\n')) as { flow: Record<string, unknown> };
    expect(out.flow).toMatchObject({
      after_untrusted: {
        action: 'confirm',
        set_by: expect.stringMatching(/^flow\.after_untrusted \(/),
      },
      after_private: {
        action: 'confirm',
        set_by: expect.stringMatching(/^flow\.after_private \(/),
      },
      accepted_risks: [],
    });
  });

  test('explain --after-untrusted of a service shows the gate, the verdict and where it was set', async () => {
    await writeFile(path('flow.yaml'), FLOW.replace('    after_untrusted: allow\n', ''));
    const io = collector();
    const opts = { policy: path('flow.yaml'), afterUntrusted: true };
    expect(await runPolicyExplain('light.turn_on', undefined, opts, io)).toBe(EXIT_OK);
    expect(io.stdout[0]).toMatch(/^CONFIRM {2}lights \(/);
    expect(io.stdout).toContain('flow: after_untrusted confirm (set by flow default)');
    expect(io.stdout).toContain(
      '  matched     flow after_untrusted: confirm, set by flow default: untrusted content was read; the call changes state',
    );
    expect(io.stderr).toEqual([]);
  });

  test('explain --after-private --open-world of a tool meets its deny; without the effect flags it says they are missing', async () => {
    await writeFile(path('flow.yaml'), FLOW);
    const denied = collector();
    const opts = { policy: path('flow.yaml'), afterPrivate: true, openWorld: true, json: true };
    expect(await runPolicyExplain('web_search', '{"query": "x"}', opts, denied)).toBe(EXIT_OK);
    expect(JSON.parse(denied.stdout.join('\n'))).toMatchObject({
      outcome: 'deny',
      flow: [{ gate: 'after_private', action: 'deny' }],
    });
    const unsaid = collector();
    const bare = { policy: path('flow.yaml'), afterPrivate: true };
    expect(await runPolicyExplain('web_search', '{"query": "x"}', bare, unsaid)).toBe(EXIT_OK);
    expect(unsaid.stdout[0]).toMatch(/^ALLOW/);
    expect(unsaid.stderr).toEqual([
      "note: explained as a tool that neither changes state nor reaches outside; give --changes-state and --open-world as web_search's spec declares (POST /v1/policy/explain reads them from the live tool)",
    ]);
  });

  test('--no-shared-words relaxes after_private only under private_match: shared_words', async () => {
    const shared = FLOW.replace(
      '  after_private: allow\n',
      '  private_match: shared_words\n',
    ).replace('    after_private: deny\n', '');
    await writeFile(path('flow.yaml'), shared);
    const run = async (sharedWords: boolean) => {
      const io = collector();
      const opts = {
        policy: path('flow.yaml'),
        afterPrivate: true,
        openWorld: true,
        sharedWords,
        json: true,
      };
      await runPolicyExplain('web_search', '{"query": "x"}', opts, io);
      return (JSON.parse(io.stdout.join('\n')) as { outcome: string }).outcome;
    };
    expect(await run(true)).toBe('confirm');
    expect(await run(false)).toBe('allow');
  });
});

describe('caesar policy explain', () => {
  test('explains a tool call: decision, matched rule, reason, obligations', async () => {
    const io = collector();
    expect(
      await runPolicyExplain('web_search', '{"query": "rome"}', { policy: path('good.yaml') }, io),
    ).toBe(EXIT_OK);
    expect(io.stdout[0]).toMatch(
      /^ALLOW {2}allowed_tools\[1\] \(.*good\.yaml:8:5 in policy sha256 [0-9a-f]{12}\)$/,
    );
    expect(io.stdout[1]).toMatch(/^reason: allowed by allowed_tools\[1\]/);
    expect(io.stdout).toContain('obligation: filter_result_urls en.wikipedia.org');
  });

  test('explains a service call from its JSON {target, data}', async () => {
    const io = collector();
    const json = '{"target": {"entity_id": "light.hall"}, "data": {"brightness": 3}}';
    const opts = { policy: path('good.yaml') };
    expect(await runPolicyExplain('light.turn_on', json, opts, io)).toBe(EXIT_OK);
    expect(io.stdout[0]).toMatch(
      /^DENY {2}default_deny \(.*good\.yaml:2:1 in policy sha256 [0-9a-f]{12}\)$/,
    );
    expect(io.stdout.join('\n')).toMatch(
      /rejected {4}lights \(.*\): target entity_id "light.hall" is not allowed by lights/,
    );
  });

  test('takes a service target and data from --target and --data too', async () => {
    const io = collector();
    const opts = { policy: path('good.yaml'), target: '{entity_id: light.kitchen}', json: true };
    expect(await runPolicyExplain('light.turn_on', undefined, opts, io)).toBe(EXIT_OK);
    expect(JSON.parse(io.stdout.join('\n'))).toMatchObject({ outcome: 'allow' });
  });

  test('--json prints the decision object itself', async () => {
    const io = collector();
    await runPolicyExplain('calculator', '{}', { policy: path('good.yaml'), json: true }, io);
    const printed: unknown = JSON.parse(io.stdout.join('\n'));
    expect(PolicyDecisionSchema.strict().parse(printed)).toMatchObject({
      allowed: true,
      outcome: 'allow',
      rule: { id: 'allowed_tools[0]', file: path('good.yaml'), line: 7 },
      obligations: [],
    });
  });

  test.each([
    ['input that does not parse', 'calculator', '{expression', {}],
    ['--target with a tool', 'calculator', undefined, { target: '{}' }],
    ['a service input with other keys', 'light.turn_on', '{"entity_id": "light.x"}', {}],
    ['a service input that is not an object', 'light.turn_on', '[1]', {}],
    ['a target given twice', 'light.turn_on', '{"target": {}}', { target: '{}' }],
  ])('exits 2 on %s', async (_name, name, input, extra) => {
    const io = collector();
    expect(await runPolicyExplain(name, input, { policy: path('good.yaml'), ...extra }, io)).toBe(
      EXIT_USAGE,
    );
    expect(io.stderr[0]).toMatch(/^caesar policy explain: /);
  });

  test('exits 1 when the policy does not load', async () => {
    const io = collector();
    expect(await runPolicyExplain('calculator', undefined, { policy: path('bad.yaml') }, io)).toBe(
      EXIT_FAILED,
    );
  });
});

describe('caesar policy test', () => {
  test('exits 0 when every case passes', async () => {
    const io = collector();
    expect(await runPolicyTest(path('passing.yaml'), { policy: path('good.yaml') }, io)).toBe(
      EXIT_OK,
    );
    expect(io.stdout.at(-1)).toMatch(/^1 passed, 0 failed/);
  });

  test('prints a row per case and exits 1 on a mismatch', async () => {
    const io = collector();
    expect(await runPolicyTest(path('cases.yaml'), { policy: path('good.yaml') }, io)).toBe(
      EXIT_FAILED,
    );
    expect(io.stdout[0]).toMatch(/^PASS {2}calc +expect allow +got allow \(allowed_tools\[0\]\)$/);
    expect(io.stdout[1]).toMatch(
      /^FAIL {2}wrong +expect allow +got deny \(default_deny\): expected allow, got deny; tool 'shell' is not on the allow-list/,
    );
  });

  test('exits 2 when the cases file is missing or invalid', async () => {
    expect(await runPolicyTest(path('nope.yaml'), { policy: path('good.yaml') }, collector())).toBe(
      EXIT_USAGE,
    );
    expect(await runPolicyTest(path('good.yaml'), { policy: path('good.yaml') }, collector())).toBe(
      EXIT_USAGE,
    );
  });
});

describe('the built CLI (real process)', () => {
  const cli = join(process.cwd(), 'dist/src/cli/main.js');
  const caesar = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [cli, ...args]);
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  // dist/ is the build `npm test` made before the run (scripts/setup.mjs). Compiling again
  // here would make every bundle older than the last compile, so every process the other
  // files start after this one would load its modules one by one (ADR 0047, ADR 0104).

  test('check exits 0 for a good policy and 1 for a bad one', async () => {
    expect((await caesar('policy', 'check', path('good.yaml'))).code).toBe(0);
    expect((await caesar('policy', 'check', '--policy', path('good.yaml'))).code).toBe(0);
    const bad = await caesar('policy', 'check', '-p', path('bad.yaml'));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(':4:5: allowed_tools[0].confrim: unknown key');
  });

  test('explain --json prints the decision for the JSON given as the second argument', async () => {
    const r = await caesar(
      'policy',
      'explain',
      'web_search',
      '{"query": "rome"}',
      '--policy',
      path('good.yaml'),
      '--json',
    );
    expect(r.code).toBe(0);
    expect(PolicyDecisionSchema.parse(JSON.parse(r.stdout))).toMatchObject({
      outcome: 'allow',
      obligations: [{ type: 'filter_result_urls', allow_domains: ['en.wikipedia.org'] }],
    });
  });

  test('test exits 1 on a mismatch', async () => {
    const r = await caesar('policy', 'test', path('cases.yaml'), '-p', path('good.yaml'));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/1 passed, 1 failed/);
  });

  test('check on 5,000 levels of flow nesting, or 400 of block nesting, exits 1 naming file:line, no stack overflow', async () => {
    const flow = `allowed_tools: ${'['.repeat(5000)}${']'.repeat(5000)}\n`;
    // 400 block levels are already 160 KB of indentation (5,000 would be over the file bound)
    const block = `allowed_tools:\n${Array.from({ length: 400 }, (_, i) => `${' '.repeat(2 * i)}- `).join('\n')}x\n`;
    await writeFile(path('deep-flow.yaml'), flow);
    await writeFile(path('deep-block.yaml'), block);
    // the first level too deep starts on line 1 (flow) and line 65 (block); the parser stops
    // at or below it, before its stack could overflow
    for (const [name, firstLine] of [
      ['deep-flow.yaml', 1],
      ['deep-block.yaml', 65],
    ] as const) {
      const r = await caesar('policy', 'check', path(name));
      expect(r.code).toBe(1);
      const line = Number(new RegExp(`${path(name)}:(\\d+):`).exec(r.stderr)?.[1]);
      expect(line).toBeGreaterThanOrEqual(firstLine);
      expect(r.stderr).toContain(`YAML: nests deeper than ${MAX_NESTING_DEPTH} levels`);
      expect(r.stderr).not.toContain('Maximum call stack');
    }
  });

  test('a usage error (missing argument) exits 2', async () => {
    const r = await caesar('policy', 'explain');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("missing required argument 'name'");
  });
});

describe('caesar policy explain --principal (ADR 0096)', () => {
  const KIDS = `version: 1
denied_services:
  - service: lock.*
    id: kids-never-unlock
    groups: [kids]
allowed_services:
  - service: lock.unlock
    id: parents-unlock
    groups: [parents]
`;

  test('judges the call as the principal and its groups, and says whom it judged', async () => {
    await writeFile(path('kids.yaml'), KIDS);
    const opts = { policy: path('kids.yaml') };
    const kid = collector();
    const asKid = { ...opts, principal: 'kids_tablet', group: ['kids'] };
    expect(await runPolicyExplain('lock.unlock', undefined, asKid, kid)).toBe(EXIT_OK);
    expect(kid.stdout[0]).toMatch(/^DENY {2}kids-never-unlock \(/);
    expect(kid.stdout.at(-1)).toBe('as principal kids_tablet (groups kids)');
    const mum = collector();
    const asMum = { ...opts, principal: 'mum', group: ['parents'] };
    expect(await runPolicyExplain('lock.unlock', undefined, asMum, mum)).toBe(EXIT_OK);
    expect(mum.stdout[0]).toMatch(/^ALLOW {2}parents-unlock \(/);
    const nobody = collector();
    expect(await runPolicyExplain('lock.unlock', undefined, opts, nobody)).toBe(EXIT_OK);
    expect(nobody.stdout[0]).toMatch(/^DENY {2}default_deny/);
    expect(nobody.stdout.join('\n')).toContain('not allowed for a caller with no principal');
  });

  test('a --group without --principal, or a malformed name, is a usage error', async () => {
    await writeFile(path('kids.yaml'), KIDS);
    const io = collector();
    const opts = { policy: path('kids.yaml'), group: ['kids'] };
    expect(await runPolicyExplain('lock.unlock', undefined, opts, io)).toBe(EXIT_USAGE);
    expect(io.stderr.join('\n')).toContain('--group');
    const bad = collector();
    const named = { policy: path('kids.yaml'), principal: 'Kids Tablet' };
    expect(await runPolicyExplain('lock.unlock', undefined, named, bad)).toBe(EXIT_USAGE);
  });
});

describe('caesar policy check with the tokens file at hand (docs/policy.md, ADR 0096)', () => {
  const NAMED = `version: 1
allowed_tools:
  - tool: calculator
    groups: [kid]
    approvers: {principals: [mum]}
`;

  test('warns of a principal or group no token has, with the closest one; none without the file', async () => {
    const dataDir = path('with-tokens');
    await writeFile(path('named.yaml'), NAMED);
    const io = collector();
    // no tokens file in the data dir: nothing to compare with, no warning
    expect(await runPolicyCheck(path('named.yaml'), { dataDir }, io)).toBe(EXIT_OK);
    expect(io.stdout.join('\n')).not.toContain('is in no token');
    await writeTokensFile(join(dataDir, 'api-tokens.yaml'), [
      { name: 'operator', token: 'o'.repeat(32) },
      { name: 'tablet', token: 't'.repeat(32), principal: 'kids_tablet', groups: ['kids'] },
    ]);
    const again = collector();
    expect(await runPolicyCheck(path('named.yaml'), { dataDir, json: true }, again)).toBe(EXIT_OK);
    const { warnings } = JSON.parse(again.stdout.join('\n')) as {
      warnings: { path: string; line: number; message: string }[];
    };
    expect(warnings.map((w) => [w.path, w.line])).toEqual([
      ['allowed_tools[0].groups[0]', 4],
      ['allowed_tools[0].approvers.principals[0]', 5],
    ]);
    expect(warnings[0]?.message).toContain("group 'kid' is in no token of");
    expect(warnings[0]?.message).toContain("did you mean 'kids'?");
  });
});
