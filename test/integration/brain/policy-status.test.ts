import { createHash } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PolicyStatusSchema } from '../../../src/brain/api/index.js';
import {
  catalogPath,
  plannedEntry,
  writeCatalog,
  type ToolEntry,
} from '../../../src/legion/catalog/index.js';
import {
  callBrain,
  pollBrain,
  startBrainProcess,
  startCalculatorProcess,
  stopProcess,
  type BrainProcess,
} from '../../helpers/brain.js';
import { runCli, type RunningCli } from '../../helpers/cli.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { waitFor } from '../../helpers/wait.js';

// Issue 15, scope 2: policy state you can see. A broken policy.yaml edit while the brain runs
// keeps the last good policy; the brain now says so where operators look (GET /v1/policy,
// caesar policy status, /readyz, legion list, its terminal), and decisions keep citing the
// rule as enforced, with the enforced policy's sha, not lines of the file on disk.

/** The rule `calc` starts at 6:5. */
const GOOD = [
  'version: 1',
  '# calculator for everyone',
  '',
  '',
  'allowed_tools:',
  '  - id: calc',
  '    tool: calculator',
  '',
].join('\n');
/** Four lines; the unknown key `bogus` at 4:5. */
const BROKEN = 'version: 1\nallowed_tools:\n  - tool: calculator\n    bogus: 1\n';
/** The fix moves the rule: `calc` now starts at 3:5. */
const FIXED = 'version: 1\nallowed_tools:\n  - id: calc\n    tool: calculator\n';
/** A catalog entry for a tool another host serves: no worker of it runs here. */
const WEATHER: ToolEntry = {
  name: 'weather',
  purpose: 'Current weather for a city.',
  location: 'host',
  capability: 'current_weather',
  module: 'weather',
  version: '1.0.0',
  tags: ['tool', 'web'],
  spec_sha256: '',
};
const HPC_SOLVER = plannedEntry('hpc_solver', 'Run FDTD jobs on the cluster', { tags: ['hpc'] });
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const short = (text: string) => sha(text).slice(0, 12);

describe('policy state of a running brain', () => {
  let nats: TestNats;
  let dir: string;
  let policyFile: string;
  let brain: BrainProcess;
  let calculator: RunningCli | undefined;

  /** Replaces the policy the way editors do (write a temporary file, rename it over). */
  const save = (text: string) => {
    const tmp = join(dir, `.policy.yaml.${Math.random().toString(36).slice(2)}`);
    writeFileSync(tmp, text);
    renameSync(tmp, policyFile);
  };
  /** GET /v1/policy, checked against the contract's schema. */
  const status = async () =>
    PolicyStatusSchema.parse((await callBrain(brain, 'GET', '/v1/policy')).body);
  const cli = (args: string[]) => runCli([...args, '--data-dir', dir]);

  beforeAll(async () => {
    nats = await startNats();
    dir = mkdtempSync(join(tmpdir(), 'caesar-policy-status-'));
    policyFile = join(dir, 'policy.yaml');
    writeFileSync(policyFile, GOOD);
    // a tool served from another host and a planned stub (ADR 0090), read by the brain at start
    await writeCatalog(catalogPath(dir), { version: 1, tools: [WEATHER, HPC_SOLVER] });
    calculator = startCalculatorProcess(nats.url);
    brain = await startBrainProcess({ natsUrl: nats.url, dataDir: dir, policyFile });
    await pollBrain(
      async () =>
        ((await callBrain(brain, 'GET', '/v1/tools')).body as { name: string }[]).some?.(
          (t) => t.name === 'calculator',
        ),
      'the brain to discover the calculator',
      30_000,
    );
  }, 60_000);

  afterAll(async () => {
    await stopProcess(brain?.proc);
    await stopProcess(calculator);
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('at start: ok, the enforced sha is the file on disk', async () => {
    expect(await status()).toEqual({
      status: 'ok',
      enforced: { path: policyFile, sha256: sha(GOOD), loaded_at: expect.any(String), rules: 1 },
      disk: { sha256: sha(GOOD), matches_enforced: true },
      last_reload_error: null,
      warnings: [],
    });
    const run = await cli(['policy', 'status']);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toContain('policy ok: the file on disk is the enforced policy');
    expect(run.stdout).toContain(`enforced: ${policyFile} (sha256 ${short(GOOD)}, 1 rule,`);
  }, 30_000);

  describe('after a broken edit', () => {
    beforeAll(async () => {
      save(BROKEN);
      await pollBrain(async () => (await status()).status === 'broken', 'status broken', 30_000);
    }, 60_000);

    test('GET /v1/policy: broken, with the error at file:line:col, the good policy enforced', async () => {
      expect(await status()).toEqual({
        status: 'broken',
        enforced: { path: policyFile, sha256: sha(GOOD), loaded_at: expect.any(String), rules: 1 },
        disk: { sha256: sha(BROKEN), matches_enforced: false },
        last_reload_error: {
          at: expect.any(String),
          code: 'policy_invalid',
          message: expect.stringContaining('allowed_tools[0]'),
          file: policyFile,
          line: 4,
          col: 5,
        },
        warnings: [],
      });
    });

    test('caesar policy status says broken, where, and the fix; exit 1; --json is the API answer', async () => {
      const run = await cli(['policy', 'status']);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('policy broken: the file on disk cannot be loaded');
      expect(run.stdout).toContain(`last reload error (`);
      expect(run.stdout).toContain(`${policyFile}:4:5: allowed_tools[0]`);
      expect(run.stdout).toContain(`fix: correct ${policyFile}:4:5 and save`);
      const json = await cli(['policy', 'status', '--json']);
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout)).toMatchObject({
        status: 'broken',
        last_reload_error: { file: policyFile, line: 4, col: 5, code: 'policy_invalid' },
      });
    }, 30_000);

    test('/readyz stays ready (the last good policy is enforced) with a warning naming file:line:col', async () => {
      const res = await callBrain(brain, 'GET', '/readyz');
      expect(res.status).toBe(200);
      expect(res.body.ready).toBe(true);
      expect(res.body.checks.policy).toMatchObject({
        ok: true,
        warning: expect.stringContaining(`policy file broken: ${policyFile}:4:5: `),
      });
      expect(res.body.checks.policy.warning).toContain(`(sha256 ${short(GOOD)}) stays enforced`);
    });

    test('caesar legion list warns, below its table', async () => {
      const run = await cli(['legion', 'list']);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('calculator');
      expect(run.stdout).toContain(`warning: policy file broken: ${policyFile}:4:5: `);
    }, 30_000);

    test("the brain's terminal has one readable line: file:line:col, what, and the fix", async () => {
      const line = await waitFor(
        () =>
          brain.proc
            .stderr()
            .split('\n')
            .find((l) => l.startsWith('policy: NOT loaded: ')),
        'the refused-reload line on stderr',
        10_000,
      );
      expect(line).toContain(`${policyFile}:4:5: allowed_tools[0]`);
      expect(line).toContain('[policy_invalid]');
      expect(line).toContain(`still enforcing the last good policy (sha256 ${short(GOOD)})`);
      expect(line).toContain(`caesar policy check -p ${policyFile}`);
    });

    test('invoke cites the rule as enforced: its line in that policy, with its sha', async () => {
      const run = await cli(['invoke', 'calculator', '{"expression":"2+3"}']);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      expect(run.stdout).toContain(
        `rule: calc (${policyFile}:6:5 in policy sha256 ${short(GOOD)})`,
      );
      const json = await cli(['invoke', 'calculator', '{"expression":"2+3"}', '--json']);
      const report = JSON.parse(json.stdout) as Record<string, unknown>;
      expect(report).toMatchObject({
        outcome: 'ok',
        rule: 'calc',
        rule_at: `${policyFile}:6:5`,
        policy_sha256: sha(GOOD),
      });
      const rows = await callBrain(
        brain,
        'GET',
        `/v1/audit?decision_id=${String(report.decision_id)}&type=tool.called`,
      );
      expect(rows.body).toHaveLength(1);
      expect(rows.body[0].payload.decision).toMatchObject({
        rule: 'calc',
        rule_at: `${policyFile}:6:5`,
        policy_sha256: sha(GOOD),
        reason: `allowed by calc (${policyFile}:6:5 in policy sha256 ${short(GOOD)})`,
      });
    }, 30_000);
  });

  describe('after the fix', () => {
    beforeAll(async () => {
      save(FIXED);
      await pollBrain(async () => (await status()).status === 'ok', 'status ok again', 30_000);
    }, 60_000);

    test('GET /v1/policy: ok, the new file enforced, the error cleared', async () => {
      expect(await status()).toMatchObject({
        status: 'ok',
        enforced: { sha256: sha(FIXED), rules: 1 },
        disk: { sha256: sha(FIXED), matches_enforced: true },
        last_reload_error: null,
      });
      expect((await cli(['policy', 'status'])).code).toBe(0);
    }, 30_000);

    test('/readyz and legion list warn no more; the terminal says the file is good again', async () => {
      const ready = await callBrain(brain, 'GET', '/readyz');
      expect(ready.body.checks.policy.warning).toBeUndefined();
      const list = await cli(['legion', 'list']);
      expect(list.stdout).not.toContain('warning:');
      const line = await waitFor(
        () =>
          brain.proc
            .stderr()
            .split('\n')
            .find((l) => l.startsWith('policy: loaded ')),
        'the loaded-again line on stderr',
        10_000,
      );
      expect(line).toBe(
        `policy: loaded ${policyFile} (sha256 ${short(FIXED)}, 1 rule); the file is good again, the reload error is cleared`,
      );
    }, 30_000);

    test('invoke cites the new rule in the new policy', async () => {
      const run = await cli(['invoke', 'calculator', '{"expression":"2+3"}']);
      expect(run.stdout).toContain(
        `rule: calc (${policyFile}:3:5 in policy sha256 ${short(FIXED)})`,
      );
    }, 30_000);
  });

  // Issue 29, point 7: a misspelt tool loaded as ok, and only a denied chat revealed it.
  describe('after an edit that misspells a tool', () => {
    /** `calculater` at 3:11: no worker serves it, no catalog lists it. */
    const MISSPELT = 'version: 1\nallowed_tools:\n  - tool: calculater\n';
    const WARNING =
      "'calculater' is served by no worker and listed in no catalog; did you mean 'calculator'?";

    beforeAll(async () => {
      save(MISSPELT);
      await pollBrain(
        async () => (await status()).enforced.sha256 === sha(MISSPELT),
        'the misspelt policy enforced',
        30_000,
      );
    }, 60_000);

    test('GET /v1/policy: ok (it loads), with a warning at the name and the closest tool', async () => {
      expect(await status()).toMatchObject({
        status: 'ok',
        warnings: [{ path: 'allowed_tools[0].tool', line: 3, column: 11, message: WARNING }],
      });
    });

    test('caesar policy status prints the warning and still exits 0', async () => {
      const run = await cli(['policy', 'status']);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(
        `warning: ${policyFile}:3:11: allowed_tools[0].tool: ${WARNING}`,
      );
    }, 30_000);

    test("the brain's terminal says it in one line after the reload", async () => {
      const line = await waitFor(
        () =>
          brain.proc
            .stderr()
            .split('\n')
            .find((l) => l.startsWith('policy: warning: ')),
        'the warning line on stderr',
        10_000,
      );
      expect(line).toBe(`policy: warning: allowed_tools[0].tool ${WARNING} (${policyFile}:3:11)`);
    });

    test("a call of the near-miss's real name is denied, pointing at the misspelt rule", async () => {
      const run = await cli(['invoke', 'calculator', '{"expression":"2+3"}']);
      expect(run.code).not.toBe(0);
      expect(`${run.stdout}\n${run.stderr}`).toContain(
        "allowed_tools lists 'calculater' (line 3): did you mean calculator? correct it there",
      );
    }, 30_000);
  });
  // Issue 31 (ADR 0090): the catalog's tools are no names nobody knows.
  describe("after an edit naming the catalog's tools", () => {
    /** `weather` (catalogued, no worker here) and `hpc_solver` (planned, 4:11). */
    const CATALOGUED = 'version: 1\nallowed_tools:\n  - weather\n  - tool: hpc_solver\n';

    beforeAll(async () => {
      save(CATALOGUED);
      await pollBrain(
        async () => (await status()).enforced.sha256 === sha(CATALOGUED),
        "the policy naming the catalog's tools enforced",
        30_000,
      );
    }, 60_000);

    test('a catalogued tool gets no warning; a planned stub is told as planned', async () => {
      expect((await status()).warnings).toEqual([
        {
          path: 'allowed_tools[1].tool',
          line: 4,
          column: 11,
          message:
            "'hpc_solver' is planned in the catalog: not callable yet, no worker serves it; the rule applies once one does",
        },
      ]);
    });
  });
});
