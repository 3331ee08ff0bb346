import { afterEach, describe, expect, test } from 'vitest';
import { BRAIN, childSpecs } from '../../../src/cli/stack/children.js';

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

  test("the operator's MALLOC_ARENA_MAX wins", () => {
    process.env.MALLOC_ARENA_MAX = '4';
    const [brain] = childSpecs(plan);
    expect(brain?.env?.MALLOC_ARENA_MAX).toBe('4');
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
});
