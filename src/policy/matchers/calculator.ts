import { z } from 'zod';
import { show } from '../show.js';
import { typedKey, type ToolMatcher } from './types.js';

/** `max_length`: the expression may be at most this many characters. */
const maxLength = typedKey({
  summary: 'input.expression must be a string of at most this many characters',
  schema: z.int().min(1),
  governs: ['expression'],
  compile: (max) => ({
    check: (input) => {
      if (!Object.hasOwn(input, 'expression')) return null;
      const expression = input.expression;
      if (typeof expression !== 'string') {
        return `input.expression must be a string, got ${show(expression)}`;
      }
      return expression.length <= max
        ? null
        : `input.expression has ${expression.length} characters, more than max_length ${max}`;
    },
  }),
});

/** calculator (mathjs): `{expression}`. */
export const calculatorMatcher: ToolMatcher = {
  tool: 'calculator',
  fields: ['expression'],
  keys: { max_length: maxLength },
};
