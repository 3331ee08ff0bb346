import { z } from 'zod';
import { unknownKeysWords } from '../../src/legion/index.js';

/**
 * The `calculator` config section (`tools.calculator` in caesar.yaml,
 * `CAESAR_TOOLS__CALCULATOR__<KEY>` in the environment): how many evaluation threads stay
 * warm and how soon an idle one stops (ADR 0048). Env values arrive as strings.
 */

/** Calculations one instance runs at once, so also the most evaluation threads it keeps. */
export const MAX_THREADS = 2;

export const DEFAULTS = Object.freeze({ warm_threads: 0, idle_seconds: 60 });

export interface CalculatorSettings {
  /** Threads started with the worker and kept however idle it is. */
  readonly warmThreads: number;
  /** A thread beyond the warm ones idle this long is stopped. */
  readonly idleMs: number;
}

function numberFromText(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  return v.trim() === '' ? undefined : Number(v.trim());
}

const shape = {
  warm_threads: z.preprocess(
    numberFromText,
    z.int(`expected a whole number from 0 to ${MAX_THREADS}`).min(0).max(MAX_THREADS).optional(),
  ),
  idle_seconds: z.preprocess(
    numberFromText,
    z.number('expected seconds from 1 to 86400').min(1).max(86_400).optional(),
  ),
};

/** The config schema the SDK checks at worker start. */
export const CalculatorConfigSchema = z
  .strictObject(shape, { error: unknownKeysWords('calculator', Object.keys(shape)) })
  .transform((raw): CalculatorSettings =>
    Object.freeze({
      warmThreads: raw.warm_threads ?? DEFAULTS.warm_threads,
      idleMs: Math.round((raw.idle_seconds ?? DEFAULTS.idle_seconds) * 1000),
    }),
  );
