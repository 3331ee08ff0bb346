import { afterEach, describe, expect, test } from 'vitest';
import { BRAIN, childSpecs } from '../../../../src/cli/stack/children.js';

const plan = {
  natsUrl: 'nats://127.0.0.1:4222',
  dataDir: '/tmp/caesar',
  policyFile: '/tmp/caesar/policy.yaml',
  intentsFile: '/etc/caesar/intents.yaml',
  tools: ['calculator'],
};
const saved = process.env.MALLOC_ARENA_MAX;

afterEach(() => {
  if (saved === undefined) delete process.env.MALLOC_ARENA_MAX;
  else process.env.MALLOC_ARENA_MAX = saved;
});

describe("caesar up's children", () => {
  test('the brain runs with two malloc arenas; a worker keeps the environment as it is', () => {
    delete process.env.MALLOC_ARENA_MAX;
    const [brain, worker] = childSpecs(plan);
    expect(brain?.name).toBe(BRAIN);
    expect(brain?.env?.MALLOC_ARENA_MAX).toBe('2');
    expect(worker?.env?.MALLOC_ARENA_MAX).toBeUndefined();
  });

  test('the brain reads the policy and intents files caesar up resolved and seeded', () => {
    const [brain, worker] = childSpecs(plan);
    const args = brain!.args.join(' ');
    expect(args).toContain('--policy /tmp/caesar/policy.yaml');
    expect(args).toContain('--intents /etc/caesar/intents.yaml');
    expect(worker!.args).not.toContain('--policy');
  });

  test('the brain expects the tools started beside it; with none, it expects none', () => {
    const [brain] = childSpecs({ ...plan, tools: ['calculator', 'web_search'] });
    const at = brain!.args.indexOf('--expect-tools');
    expect(brain!.args[at + 1]).toBe('calculator,web_search');
    const [alone] = childSpecs({ ...plan, tools: [] });
    expect(alone!.args).not.toContain('--expect-tools');
  });

  test("the operator's MALLOC_ARENA_MAX wins", () => {
    process.env.MALLOC_ARENA_MAX = '4';
    const [brain] = childSpecs(plan);
    expect(brain?.env?.MALLOC_ARENA_MAX).toBe('4');
  });

  test('every child writes JSON log records, which caesar up reads, whatever the env says', () => {
    const before = process.env.CAESAR_LOG__FORMAT;
    process.env.CAESAR_LOG__FORMAT = 'pretty';
    try {
      const specs = childSpecs(plan);
      expect(specs.map((s) => s.env?.CAESAR_LOG__FORMAT)).toEqual(['json', 'json']);
    } finally {
      if (before === undefined) delete process.env.CAESAR_LOG__FORMAT;
      else process.env.CAESAR_LOG__FORMAT = before;
    }
  });

  test('the brain still inherits the rest of the environment', () => {
    const [brain] = childSpecs(plan);
    expect(brain?.env?.PATH).toBe(process.env.PATH);
  });

  test("a module's tool runs as `serve-tool <tool> --module <module>`: one tool per worker", () => {
    const modules = new Map([['greeter', '/home/me/greeter']]);
    const [, calculator, greeter] = childSpecs({
      ...plan,
      tools: ['calculator', 'greeter'],
      modules,
    });
    expect(calculator?.args).not.toContain('--module');
    expect(greeter?.name).toBe('greeter');
    const at = greeter!.args.indexOf('serve-tool');
    expect(greeter!.args.slice(at, at + 2)).toEqual(['serve-tool', 'greeter']);
    expect(greeter!.args.slice(-2)).toEqual(['--module', '/home/me/greeter']);
  });

  test("with minted identities, the brain pins each worker's key and each worker trusts the brain's", () => {
    const auth = {
      serverConfig: '/tmp/caesar/nats-server.conf',
      operatorSeedFile: '/tmp/caesar/nkeys/operator.nk',
      brainSeedFile: '/tmp/caesar/nkeys/brain.nk',
      brainPublicKey: `UBRAIN${'A'.repeat(50)}`,
      toolSeedFiles: new Map([
        ['calculator', '/tmp/caesar/nkeys/tool-calculator.nk'],
        ['call_service', '/tmp/caesar/nkeys/tool-call_service.nk'],
      ]),
      toolPublicKeys: new Map([
        ['calculator', `UCALC${'A'.repeat(51)}`],
        ['call_service', `UHA${'A'.repeat(53)}`],
      ]),
    };
    const [brain, calculator, callService] = childSpecs({
      ...plan,
      tools: ['calculator', 'call_service'],
      auth,
    });
    expect(brain?.env?.CAESAR_BRAIN__TRUSTED_WORKERS).toBe(
      `calculator=UCALC${'A'.repeat(51)},call_service=UHA${'A'.repeat(53)}`,
    );
    expect(brain?.env?.CAESAR_BUS__NKEY_SEED_FILE).toBe('/tmp/caesar/nkeys/brain.nk');
    expect(calculator?.env?.CAESAR_BUS__NKEY_SEED_FILE).toBe(
      '/tmp/caesar/nkeys/tool-calculator.nk',
    );
    expect(callService?.env?.CAESAR_WORKER__TRUSTED_BRAINS).toBe(auth.brainPublicKey);
  });
});
