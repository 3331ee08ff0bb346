import { z } from 'zod';
import { patternProblem } from './pattern.js';

/** Value types a constraint can demand with `type:`. */
const VALUE_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'] as const;
type ValueType = (typeof VALUE_TYPES)[number];

export type Scalar = string | number | boolean;

/**
 * A constraint on one value of service `data` or tool `input`. Every listed operator must
 * hold. Shorthands: a scalar means `equals` (an exact value), a list means `enum`.
 */
export interface ConstraintSpec {
  equals?: Scalar;
  enum?: Scalar[];
  /** Globs a string must match (one of them); `*` any run, `?` one character. */
  glob?: string[];
  /** An RE2 regular expression the whole string must match (it is anchored for you). */
  pattern?: string;
  min?: number;
  max?: number;
  min_length?: number;
  max_length?: number;
  max_items?: number;
  type?: ValueType;
  /** Allow rules only: the key must be present. */
  required?: boolean;
  /** Allow rules only: the key must be absent. */
  forbidden?: boolean;
  /** Constraints on the keys of an object value. */
  fields?: Record<string, ConstraintSpec>;
}

const ScalarSchema = z.union([z.string(), z.number(), z.boolean()]);
const Count = z.int().nonnegative();

function shorthand(value: unknown): unknown {
  if (Array.isArray(value)) return { enum: value };
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return { equals: value };
  }
  return value;
}

const ConstraintObjectSchema = z
  .strictObject({
    equals: ScalarSchema.optional(),
    enum: z.array(ScalarSchema).min(1).optional(),
    glob: z
      .preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.string().min(1)).min(1))
      .optional(),
    pattern: z.string().min(1).optional(),
    min: z.number().optional(),
    max: z.number().optional(),
    min_length: Count.optional(),
    max_length: Count.optional(),
    max_items: Count.optional(),
    type: z.enum(VALUE_TYPES).optional(),
    required: z.boolean().optional(),
    forbidden: z.boolean().optional(),
    get fields() {
      return z.record(z.string(), ConstraintSchema).optional();
    },
  })
  .superRefine((c, ctx) => {
    const problem = c.pattern === undefined ? null : patternProblem(c.pattern);
    if (problem !== null) ctx.addIssue({ code: 'custom', path: ['pattern'], message: problem });
    if (c.min !== undefined && c.max !== undefined && c.min > c.max) {
      ctx.addIssue({ code: 'custom', path: ['min'], message: 'min is greater than max' });
    }
    if (c.min_length !== undefined && c.max_length !== undefined && c.min_length > c.max_length) {
      ctx.addIssue({ code: 'custom', path: ['min_length'], message: 'min_length > max_length' });
    }
    if (c.forbidden === true && Object.keys(c).length > 1) {
      ctx.addIssue({
        code: 'custom',
        message: 'forbidden: true cannot be combined with other operators',
      });
    }
  });

/** One value constraint (see ConstraintSpec). `null` is refused: write `{}` for "any value". */
export const ConstraintSchema: z.ZodType<ConstraintSpec, unknown> = z.preprocess(
  shorthand,
  z
    .custom<unknown>((v) => v !== null, 'empty constraint; write {} to allow any value')
    .pipe(ConstraintObjectSchema),
);

/** Every operator a constraint may use. */
export const CONSTRAINT_OPERATORS: ReadonlySet<string> = new Set(
  Object.keys(ConstraintObjectSchema.shape),
);

/** Constraints keyed by the data/input key they govern. */
export const ConstraintMapSchema = z.record(z.string(), ConstraintSchema);
