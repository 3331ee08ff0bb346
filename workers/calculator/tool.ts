import { CaesarError, defineTool, RefCounted } from '../../src/legion/index.js';
import { CalculatorConfigSchema, MAX_THREADS } from './config.js';
import {
  createEvaluator,
  DEFAULT_THREAD_DEPTH,
  type Evaluator,
  type EvaluatorOptions,
} from './evaluator.js';
import { quickCalculate } from './quick.js';
import { CalcInputSchema, CalcResultSchema } from './schema.js';
import { prescreen } from './screen.js';

/**
 * Upper bound on one call: room for the wait for a thread, a cold start (loading mathjs,
 * about 1 s, several on a slow board) included. The calculation itself is capped far lower,
 * at EVAL_CAP_MS.
 */
const TIMEOUT_MS = 10_000;

/** Longest one calculation may run on its thread before it is cut off with `timeout`. */
const EVAL_CAP_MS = 2000;

const DESCRIPTION = [
  'Evaluates one arithmetic expression exactly and offline; use it instead of doing math in your head.',
  'Supports + - * / ^ (power), % or mod, ! (factorial), parentheses, small matrices such as [1, 2; 3, 4],',
  'the functions sqrt, cbrt, nthRoot, exp, log (log(x) is natural, log(x, base)), log10, log2, sin, cos, tan,',
  'asin, acos, atan, atan2, sinh, cosh, tanh and their inverses, abs, sign, round (round(x, digits)), floor, ceil,',
  'fix, min, max, hypot, gcd, lcm, factorial, the constants pi, e, tau and phi, and units with conversion:',
  '"5 km to miles", "100 degF to degC", "3 ft + 4 in", "sin(30 deg)".',
  'Examples: "17 * 23", "2^10", "sqrt(16)", "log(100, 10)", "round(3.14159, 2)".',
  'Returns the formatted result (14 significant digits), its numeric value and its unit, if any.',
  'Refuses (invalid_input) variables, assignments, function definitions, strings, comparisons, ranges,',
  'results that are not finite (such as 1/0 or 9^9^9), and expressions longer than 1000 characters.',
].join(' ');

/**
 * Builds a calculator tool with its own evaluator. `start` opens it with the section's
 * thread settings (the first start; later starts of the same definition share it) and
 * `stop` closes it after the last instance stops. Threads start on demand, so an idle
 * worker holds no mathjs unless `tools.calculator.warm_threads` asks for it (ADR 0048).
 */
export function createCalculatorTool(options: Omit<EvaluatorOptions, 'logger'> = {}) {
  // one evaluator (its threads) for every instance a worker serves of this definition
  const evaluators = new RefCounted<'evaluator', Promise<Evaluator>>((e) => e.close());
  return defineTool({
    name: 'calculator',
    version: '1.0.0',
    title: 'Calculator',
    description: DESCRIPTION,
    tags: ['tool', 'math'],
    backend: 'mathjs',
    capabilities: ['calculate', 'convert_units'],
    input: CalcInputSchema,
    output: CalcResultSchema,
    annotations: { readOnly: true, openWorld: false },
    // stated, not inferred from openWorld: a cache or a replay may rely on it, and it holds
    // because the restricted instance has no random functions (scope.ts; tool.test.ts)
    determinism: 'deterministic',
    executionLocality: 'local',
    resourceRequirements: { cpu: 'low', memory_mb: 256, network: false },
    // computed from the expression alone, offline: nothing from outside to carry instructions
    outputTrust: 'trusted',
    readsPrivate: false,
    timeoutMs: TIMEOUT_MS,
    // every calculation each thread may hold (ADR 0050): past that the SDK queues the call
    maxConcurrency: MAX_THREADS * DEFAULT_THREAD_DEPTH,
    maxQueue: 64,
    config: CalculatorConfigSchema,
    start: async (ctx) => {
      await evaluators.acquire('evaluator', () =>
        createEvaluator({
          maxThreads: MAX_THREADS,
          maxEvalMs: EVAL_CAP_MS,
          ...ctx.config,
          ...options,
          logger: ctx.logger,
        }),
      );
    },
    stop: () => evaluators.release(),
    // Not async: an expression the quick path answers is answered at once, so the SDK
    // replies within the message callback (no promise, timer or AbortController; ADR 0050).
    handler: (input, ctx) => {
      const evaluator = evaluators.peek('evaluator');
      if (evaluator === undefined) {
        throw CaesarError.of('internal', { reason: 'the calculator was not started' });
      }
      prescreen(input.expression);
      const { expression } = input;
      return (
        quickCalculate(expression) ??
        evaluator.then((e) => e.evaluate(expression, { signal: ctx.signal }))
      );
    },
  });
}

/** The shipped calculator tool (`caesar legion serve-tool calculator`). */
export const calculatorTool = createCalculatorTool();
