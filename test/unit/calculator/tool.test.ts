import { describe, expect, test } from 'vitest';
import { InvalidInputError, type ToolContext } from '../../../src/legion/index.js';
import { silentLogger } from '../../../src/log/index.js';
import { calculatorTool } from '../../../workers/calculator/index.js';
import { CalculatorConfigSchema } from '../../../workers/calculator/config.js';
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

  test('answers, refuses and cuts off through the handler between start and stop', async () => {
    const tool = createCalculatorTool({ maxThreads: 1 });
    await tool.start!({ logger: silentLogger(), config, worker });
    try {
      await expect(tool.handler({ expression: '17 * 23' }, callContext())).resolves.toEqual({
        expression: '17 * 23',
        result: '391',
        value: 391,
      });
      await expect(tool.handler({ expression: 'import(x)' }, callContext())).rejects.toBeInstanceOf(
        InvalidInputError,
      );
      const controller = new AbortController();
      const call = tool.handler({ expression: '2 + 2' }, callContext(controller.signal));
      controller.abort();
      await expect(call).rejects.toMatchObject({ code: 'timeout' });
    } finally {
      await tool.stop!();
    }
  });

  test('instances started from one definition share the threads until the last one stops', async () => {
    const tool = createCalculatorTool({ maxThreads: 1 });
    const startCtx = { logger: silentLogger(), config, worker };
    await tool.start!(startCtx);
    await tool.start!(startCtx);
    await tool.stop!();
    await expect(tool.handler({ expression: '1 + 1' }, callContext())).resolves.toMatchObject({
      value: 2,
    });
    await tool.stop!();
    await expect(tool.handler({ expression: '1 + 1' }, callContext())).rejects.toMatchObject({
      code: 'internal',
      message: 'the calculator was not started',
    });
  });
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
