import { z } from 'zod';
import { boundText, durationHint, readDuration, type DurationOptions } from './duration.js';

/**
 * The duration grammar of `duration.ts` as a zod schema, for the files read with zod
 * (caesar.yaml and env through the config schema, the policy and its cases). Kept apart from
 * the grammar so that a reader without zod (the CLI's flags, ADR 0047) does not load it.
 */

/**
 * A zod schema that reads a duration (a string, or a number where `bareNumber` is `'ms'`)
 * into whole milliseconds, at least `min` (default 0) and at most `max`.
 */
export function durationSchema(options: DurationOptions & { min?: number } = {}) {
  const min = options.min ?? 0;
  return z
    .union([z.number(), z.string()], { error: `expected ${durationHint(options)}` })
    .transform((value, ctx) => {
      const read = readDuration(value, options);
      if ('ms' in read && read.ms >= min) return read.ms;
      const message =
        'problem' in read
          ? read.problem
          : `invalid duration '${value}': at least ${boundText(min)}`;
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    });
}
