import { describe, expect, test } from 'vitest';
import { InvalidInputError, type ToolContext } from '../../../src/legion/index.js';
import { silentLogger } from '../../../src/log/index.js';
import { calculatorTool } from '../../../workers/calculator/index.js';
import { CalculatorConfigSchema } from '../../../workers/calculator/config.js';
import { ALLOWED_FUNCTIONS, createCalculatorMath } from '../../../workers/calculator/scope.js';
import { createCalculatorTool } from '../../../workers/calculator/tool.js';

const worker = { id: 'test-worker', host: 'localhost' };

const config = CalculatorConfigSchema.parse({});

function callContext(
  signal: AbortSignal = new AbortController().signal,
): ToolContext<typeof config> {
  return {
    logger: silentLogger(),
    signal,
    decisionId: 'dec-1',
    deadline: Date.now() + 10_000,
    config,
    worker,
  };
}

describe('calculator tool', () => {
  test('declares a spec with the expression schema and its limits', () => {
    expect(calculatorTool.spec).toMatchObject({
      name: 'calculator',
      version: '1.0.0',
      tags: ['tool', 'math'],
      timeout_ms: 10_000,
      max_concurrency: 64,
      annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
      input_schema: {
        type: 'object',
        properties: { expression: { type: 'string', minLength: 1, maxLength: 1000 } },
        required: ['expression'],
      },
    });
    expect(calculatorTool.spec.output_schema).toMatchObject({
      required: ['expression', 'result', 'value'],
    });
  });

  test('says it is deterministic, and its mathjs instance has no random function', () => {
    expect(calculatorTool.spec.determinism).toBe('deterministic');
    const { math } = createCalculatorMath();
    for (const name of ['random', 'randomInt', 'pickRandom']) {
      expect(ALLOWED_FUNCTIONS).not.toContain(name);
      expect(name in math).toBe(false);
    }
  });

  /** Calls the handler as the SDK does: a synchronous answer or throw becomes a promise. */
  function call(
    tool: ReturnType<typeof createCalculatorTool>,
    expression: string,
    signal?: AbortSignal,
  ): Promise<unknown> {
    return (async () => tool.handler({ expression }, callContext(signal)))();
  }

  /**
   * The hang guard for tests that start a mathjs thread: importing mathjs costs about 1 s of
   * CPU (1.15 s to the first answer on an idle 2-core machine, 2.9 s beside four busy loops),
   * and CI runs these files beside integration files that start whole stacks (21.5 s seen).
   */
  const THREAD_TEST_TIMEOUT = 60_000;

  test(
    'answers, refuses and cuts off through the handler between start and stop',
    async () => {
      const tool = createCalculatorTool({ maxThreads: 1 });
      await tool.start!({ logger: silentLogger(), config, worker });
      try {
        for (const expression of ['17 * 23', '17 km / km * 23']) {
          await expect(call(tool, expression)).resolves.toMatchObject({
            result: '391',
            value: 391,
          });
        }
        await expect(call(tool, 'import(x)')).rejects.toBeInstanceOf(InvalidInputError);
        await expect(call(tool, '1 +* 2')).rejects.toBeInstanceOf(InvalidInputError);
        const controller = new AbortController();
        // not for the quick path: it goes to a thread, where the abort cuts it off
        const cut = call(tool, '2 km + 2 m', controller.signal);
        controller.abort();
        await expect(cut).rejects.toMatchObject({ code: 'timeout' });
      } finally {
        await tool.stop!();
      }
    },
    THREAD_TEST_TIMEOUT,
  );

  test('answers plain arithmetic in the calling thread, synchronously', async () => {
    const tool = createCalculatorTool({ maxThreads: 1 });
    await tool.start!({ logger: silentLogger(), config, worker });
    try {
      expect(tool.handler({ expression: '(1+2)/3 * 4.5' }, callContext())).toEqual({
        expression: '(1+2)/3 * 4.5',
        result: '4.5',
        value: 4.5,
      });
      expect(() => tool.handler({ expression: 'a'.repeat(1001) }, callContext())).toThrow(
        InvalidInputError,
      );
    } finally {
      await tool.stop!();
    }
  });

  test(
    'instances started from one definition share the threads until the last one stops',
    async () => {
      const tool = createCalculatorTool({ maxThreads: 1 });
      const startCtx = { logger: silentLogger(), config, worker };
      await tool.start!(startCtx);
      await tool.start!(startCtx);
      await tool.stop!();
      await expect(call(tool, '1 + 1')).resolves.toMatchObject({ value: 2 });
      await expect(call(tool, '1 km / m')).resolves.toMatchObject({ value: 1000 });
      await tool.stop!();
      await expect(call(tool, '1 + 1')).rejects.toMatchObject({
        code: 'internal',
        message: 'internal error: the calculator was not started',
      });
    },
    THREAD_TEST_TIMEOUT,
  );
});

describe('calculator config section', () => {
  test('defaults: no warm thread, idle threads stop after 60 s', () => {
    expect(CalculatorConfigSchema.parse({})).toEqual({ warmThreads: 0, idleMs: 60_000 });
  });

  test('reads env strings as numbers', () => {
    expect(CalculatorConfigSchema.parse({ warm_threads: '1', idle_seconds: '2.5' })).toEqual({
      warmThreads: 1,
      idleMs: 2500,
    });
  });

  test.each([
    [{ warm_threads: 3 }, 'warm_threads'],
    [{ warm_threads: -1 }, 'warm_threads'],
    [{ idle_seconds: 0 }, 'idle_seconds'],
    [{ threads: 2 }, "unknown key 'threads'; calculator takes warm_threads, idle_seconds"],
  ])('refuses %o', (section, named) => {
    const r = CalculatorConfigSchema.safeParse(section);
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain(named);
  });
});
