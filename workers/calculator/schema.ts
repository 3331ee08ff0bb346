import { z } from 'zod';
import { MAX_EXPRESSION_LENGTH } from './screen.js';

/** The calculator's input: one expression. */
export const CalcInputSchema = z.strictObject({
  expression: z
    .string()
    .min(1)
    .max(MAX_EXPRESSION_LENGTH)
    .describe(
      'One math expression, for example "17 * 23", "sqrt(2) ^ 3", "log(100, 10)", "sin(pi / 6)", "round(2 / 3, 4)" or a unit conversion such as "5 km to miles" or "100 degF to degC".',
    ),
});

/** The calculator's answer. */
export const CalcResultSchema = z.strictObject({
  expression: z.string().describe('The expression as given.'),
  result: z
    .string()
    .describe(
      'The result formatted for reading, at most 14 significant digits: "3.1068559611867 miles".',
    ),
  value: z
    .union([z.number(), z.string()])
    .describe(
      'The numeric value, in `unit` when there is one; a string for complex numbers and matrices.',
    ),
  unit: z
    .string()
    .optional()
    .describe('The unit of `value` for quantities, such as "miles" or "m / s".'),
});
export type CalcResult = z.infer<typeof CalcResultSchema>;
