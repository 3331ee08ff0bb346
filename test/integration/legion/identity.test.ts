import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  callBrain,
  pollBrain,
  startBrainProcess,
  startCalculatorProcess,
  stopProcess,
  type BrainProcess,
} from '../../helpers/brain.js';
import { runCli, startCli, type RunningCli } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import { expectCalculatorWorkerContained, startNats, type TestNats } from '../../helpers/nats.js';

// Issue 14, scope 1: identities minted by `caesar legion identity new`, their printed user
// blocks pasted into the server config as they come; the brain needs no --inbox-identity.

interface Minted {
  seedFile: string;
  publicKey: string;
  block: string;
  stdout: string;
}

async function mint(dir: string, name: string, role: string[]): Promise<Minted> {
  const seedFile = join(dir, `${name}.nk`);
  const run = await runCli(['legion', 'identity', 'new', name, ...role, '--out', seedFile]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const lines = run.stdout.split('\n');
  const publicKey = /^public key: (U[A-Z2-7]{55})$/.exec(lines[1] ?? '')?.[1] ?? '';
  return { seedFile, publicKey, block: (lines[3] ?? '').trim(), stdout: run.stdout };
}

describe('caesar legion identity new', () => {
  let dir: string;
  let nats: TestNats;
  let ids: Record<'brain' | 'calculator' | 'operator', Minted>;
  let brain: BrainProcess | undefined;
  let calculator: RunningCli | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caesar-identity-'));
    ids = {
      brain: await mint(dir, 'brain', ['--brain']),
      calculator: await mint(dir, 'calculator-nuc', ['--tools', 'calculator']),
      operator: await mint(dir, 'operator', ['--operator']),
    };
    const users = Object.values(ids).map((id) => `    ${id.block},`);
    const config = ['authorization: {', '  users: [', ...users, '  ]', '}', ''].join('\n');
    nats = await startNats({ config });
    await writeFile(join(dir, 'policy.yaml'), 'version: 1\nallowed_tools:\n  - calculator\n');
    calculator = startCalculatorProcess(nats.url, [
      '--nkey-seed-file',
      ids.calculator.seedFile,
      '--trusted-brain',
      join(dir, 'brain.pub'),
    ]);
    brain = await startBrainProcess({
      natsUrl: nats.url,
      dataDir: join(dir, 'var'),
      policyFile: join(dir, 'policy.yaml'),
      args: ['--nkey-seed-file', ids.brain.seedFile],
    });
  }, 60_000);

  /** `caesar legion serve-tool calculator` on the test server, as the calculator identity. */
  const serveCalculator = (...extra: string[]) => [
    'legion',
    'serve-tool',
    'calculator',
    '--nats-url',
    nats.url,
    '--nkey-seed-file',
    ids.calculator.seedFile,
    ...extra,
  ];

  afterAll(async () => {
    await Promise.all([stopProcess(brain?.proc), stopProcess(calculator)]);
    await nats?.stop();
    await rm(dir, { recursive: true, force: true });
  }, 30_000);

  test('writes each seed for its owner only and prints its public key and user block', async () => {
    for (const id of Object.values(ids)) {
      expect((await stat(id.seedFile)).mode & 0o777).toBe(0o600);
      expect(id.block).toMatch(new RegExp(`^\\{"nkey":"${id.publicKey}"`));
    }
    expect(ids.brain.block).toContain(`"_INBOX.${ids.brain.publicKey}.>"`);
    expect(ids.operator.block).toBe(`{"nkey":"${ids.operator.publicKey}"}`);
    expect(ids.calculator.stdout).toContain(
      `caesar legion serve-tool calculator --nats-url nats://<server>:4222 --nkey-seed-file ${ids.calculator.seedFile} --trusted-brain <brain>.pub`,
    );
    // the brain's public key, for the worker hosts: world-readable, and the key only
    expect(await readFile(join(dir, 'brain.pub'), 'utf8')).toBe(`${ids.brain.publicKey}\n`);
    expect(ids.brain.stdout).toContain(`--trusted-brain ${join(dir, 'brain.pub')}`);
  });

  test('the brain under its identity, with no --inbox-identity, discovers the worker and chats', async () => {
    const b = brain!;
    await pollBrain(
      async () =>
        ((await callBrain(b, 'GET', '/v1/tools')).body as { name: string }[]).some?.(
          (t) => t.name === 'calculator',
        ),
      'the brain to discover the calculator',
      30_000,
    );
    const r = await callBrain(b, 'POST', '/v1/chat', { message: 'what is 17 * 23' });
    expect((r.body as { reply: string }).reply).toBe('17 * 23 = 391');
  }, 60_000);

  test("the worker's identity may not receive another tool's calls nor dispatch", async () => {
    await expectCalculatorWorkerContained(nats.url, ids.calculator.seedFile);
  });

  test("a brain under a worker's identity exits 1 naming what NATS refused, its key and the fix", async () => {
    const run = await runCli([
      'brain',
      '--nats-url',
      nats.url,
      '--data-dir',
      join(dir, 'var-wrong'),
      '--api-port',
      '0',
      '--policy',
      join(dir, 'policy.yaml'),
      '--nkey-seed-file',
      ids.calculator.seedFile,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("NATS refused the brain's");
    expect(run.stderr).toContain(`subscription to "_INBOX.${ids.calculator.publicKey}.`);
    expect(run.stderr).toContain('publish to "$SRV.');
    expect(run.stderr).toContain('`caesar legion identity new <name> --brain`');
    expect(run.stderr).toContain(
      `the brain's identity: the NKEY ${ids.calculator.publicKey} (seed file ${ids.calculator.seedFile})`,
    );
    expect(run.stdout).not.toContain('brain ready');
  }, 60_000);

  test('a worker that requires grants and trusts no brain does not start, naming the key and the flag', async () => {
    const run = await runCli(serveCalculator());
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('worker.trusted_brains: no brain is trusted');
    expect(run.stderr).toContain('--trusted-brain');
    expect(run.stderr).toContain('CAESAR_WORKER__REQUIRE_GRANT=false');
    const seedAsKey = await runCli(serveCalculator('--trusted-brain', ids.brain.seedFile));
    expect(seedAsKey.code).toBe(1);
    expect(seedAsKey.stderr).toContain("give the brain's <name>.pub, never its seed");
    const seed = (await readFile(ids.brain.seedFile, 'utf8')).trim();
    expect(seedAsKey.stderr).not.toContain(seed);
  }, 60_000);

  test('a worker with worker.require_grant: false says so at start', async () => {
    const w = startCli(serveCalculator('--log-level', 'warn'), {
      CAESAR_WORKER__REQUIRE_GRANT: 'false',
    });
    try {
      await waitFor(() => /dispatch grants are off/.test(w.stderr()), 'the warn line', 60_000);
    } finally {
      await stopProcess(w);
    }
  }, 90_000);

  test('refuses to overwrite a seed file, and a role given twice or not at all', async () => {
    const again = await runCli([
      'legion',
      'identity',
      'new',
      'brain',
      '--brain',
      '--out',
      ids.brain.seedFile,
    ]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`${ids.brain.seedFile} exists`);
    for (const role of [[], ['--brain', '--operator']]) {
      const r = await runCli(['legion', 'identity', 'new', 'x', ...role, '--out', join(dir, 'x')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('give exactly one of --tools <names>, --brain or --operator');
    }
  });
});
