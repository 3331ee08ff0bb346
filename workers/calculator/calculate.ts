import type { MathNode } from 'mathjs';
import { formatResult } from './format.js';
import type { CalcResult } from './schema.js';
import {
  ALLOWED_CONSTANTS,
  ALLOWED_FUNCTIONS,
  ALLOWED_OPERATORS,
  createCalculatorMath,
} from './scope.js';
import { checkTree, ExpressionRejectedError, prescreen, type TreeAllowList } from './screen.js';

/** Evaluates one expression in-process: pre-screen, parse, tree check, evaluate, format. */
export type Calculate = (expression: string) => CalcResult;

/**
 * Builds the calculation pipeline on a fresh restricted instance. It has no time or memory
 * bound of its own: the evaluator runs it inside a worker thread that does (eval-thread.ts).
 * Refusals throw ExpressionRejectedError; so does any error mathjs raises while evaluating
 * (for example "Units do not match"), since such errors are caused by the expression.
 */
export function createCalculate(): Calculate {
  const { math, parse, isUnitName } = createCalculatorMath();
  const allow: TreeAllowList = {
    functions: new Set(ALLOWED_FUNCTIONS),
    operators: new Set(ALLOWED_OPERATORS),
    constants: new Set(ALLOWED_CONSTANTS),
    isUnitName,
  };
  return (expression) => {
    prescreen(expression);
    const tree = parseOrReject(parse, expression);
    checkTree(tree, allow);
    return formatResult(math, expression, evaluateOrReject(tree));
  };
}

function parseOrReject(parse: (e: string) => MathNode, expression: string): MathNode {
  try {
    return parse(expression);
  } catch (err) {
    throw asRejection('syntax', err);
  }
}

function evaluateOrReject(tree: MathNode): unknown {
  try {
    return tree.compile().evaluate() as unknown;
  } catch (err) {
    throw asRejection('evaluation', err);
  }
}

/** Longest mathjs error message passed on to the caller. */
const MAX_MESSAGE_LENGTH = 300;

function asRejection(reason: 'syntax' | 'evaluation', err: unknown): ExpressionRejectedError {
  if (err instanceof ExpressionRejectedError) return err;
  if (err instanceof RangeError && /call stack/i.test(err.message)) {
    return new ExpressionRejectedError(
      'resource_limit',
      "the expression exceeds the calculator's resource limits",
    );
  }
  const detail = err instanceof Error ? err.message : String(err);
  const prefix =
    reason === 'syntax' ? 'cannot parse the expression' : 'cannot evaluate the expression';
  return new ExpressionRejectedError(reason, `${prefix}: ${detail.slice(0, MAX_MESSAGE_LENGTH)}`);
}
