import type {
  ArrayNode,
  ConstantNode,
  FunctionNode,
  MathNode,
  OperatorNode,
  SymbolNode,
} from 'mathjs';
// the error module itself, not the SDK's index: this file runs in the evaluation thread too,
// which must not load NATS or the rest of the SDK
import { InvalidInputError } from '../../src/protocol/errors.js';

/**
 * Pre-screen and tree check for calculator expressions. Pure: no mathjs instance, no I/O,
 * so it runs in the main thread (cheap rejections never reach the evaluation thread) and
 * again inside the thread on the parsed tree.
 */

/** @default 1000 characters, the tool's input limit. */
export const MAX_EXPRESSION_LENGTH = 1000;
/** Deepest `(`/`[` nesting the pre-screen lets through. */
export const MAX_BRACKET_DEPTH = 32;
/** Deepest parsed tree (unary and power chains nest without brackets). */
const MAX_TREE_DEPTH = 64;
/** Most nodes in one parsed tree. */
const MAX_TREE_NODES = 500;
/** Most elements in one matrix literal such as `[1, 2; 3, 4]`. */
const MAX_MATRIX_ELEMENTS = 64;

/** Why an expression was refused; `reason` is stable, `message` is for the caller. */
export type RejectReason =
  | 'empty'
  | 'too_long'
  | 'character'
  | 'nesting'
  | 'syntax'
  | 'node'
  | 'function'
  | 'symbol'
  | 'operator'
  | 'constant'
  | 'matrix_size'
  | 'matrix_power'
  | 'tree_size'
  | 'result'
  | 'evaluation'
  | 'resource_limit';

/** An expression the calculator refuses: `invalid_input`, with the reason in `details`. */
export class ExpressionRejectedError extends InvalidInputError {
  override readonly name = 'ExpressionRejectedError';
  constructor(
    readonly reason: RejectReason,
    message: string,
  ) {
    super(message, { details: { reason } });
  }
}

/**
 * Digits, ASCII letters, blanks and the operators the calculator supports. Quotes (strings),
 * `=` (assignment), `{}` (objects), `:` (ranges), `#` (comments), `'` (transpose),
 * newlines (statement blocks) and comparison or logic operators are outside it.
 */
const ALLOWED_CHARACTER = /[0-9A-Za-z_ \t.,+\-*/^%!()[\];]/;

/** Cheap checks on the raw string: length, characters, bracket nesting. */
export function prescreen(expression: string): void {
  if (expression.trim().length === 0) {
    throw new ExpressionRejectedError('empty', 'the expression is empty');
  }
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new ExpressionRejectedError(
      'too_long',
      `the expression is ${expression.length} characters long; at most ${MAX_EXPRESSION_LENGTH} are allowed`,
    );
  }
  checkCharacters(expression);
  checkBracketDepth(expression);
}

function checkCharacters(expression: string): void {
  for (const ch of expression) {
    if (ALLOWED_CHARACTER.test(ch)) continue;
    throw new ExpressionRejectedError(
      'character',
      `character ${JSON.stringify(ch)} is not allowed: use numbers, units, + - * / ^ % ! ( ) [ ] , ; and function names`,
    );
  }
}

function checkBracketDepth(expression: string): void {
  let depth = 0;
  for (const ch of expression) {
    if (ch === '(' || ch === '[') depth += 1;
    else if (ch === ')' || ch === ']') depth -= 1;
    if (depth > MAX_BRACKET_DEPTH) {
      throw new ExpressionRejectedError(
        'nesting',
        `brackets nest deeper than ${MAX_BRACKET_DEPTH} levels`,
      );
    }
  }
}

/** What the tree check accepts; supplied by the restricted instance (scope.ts). */
export interface TreeAllowList {
  readonly functions: ReadonlySet<string>;
  readonly operators: ReadonlySet<string>;
  readonly constants: ReadonlySet<string>;
  readonly isUnitName: (name: string) => boolean;
}

/** Node types the calculator evaluates; every other type is refused by name. */
const ALLOWED_NODE_TYPES = new Set([
  'ConstantNode',
  'SymbolNode',
  'OperatorNode',
  'FunctionNode',
  'ParenthesisNode',
  'ArrayNode',
]);

/** Names mathjs or JavaScript treat specially; refused whatever the allow-list says. */
const UNSAFE_NAMES = new Set(['constructor', '__proto__', 'prototype', '__defineGetter__']);

/**
 * Walks the parsed tree and throws on the first construct outside the calculator's scope:
 * assignments, function definitions, property access, objects, ranges, conditionals,
 * strings, unknown functions or symbols, oversized matrices, oversized trees.
 */
export function checkTree(root: MathNode, allow: TreeAllowList): void {
  let count = 0;
  const visit = (node: MathNode, depth: number): void => {
    count += 1;
    if (count > MAX_TREE_NODES || depth > MAX_TREE_DEPTH) {
      throw new ExpressionRejectedError(
        'tree_size',
        `the expression is too complex (more than ${MAX_TREE_NODES} terms or ${MAX_TREE_DEPTH} levels)`,
      );
    }
    checkNode(node, allow);
    for (const child of childrenToVisit(node)) visit(child, depth + 1);
  };
  visit(root, 0);
}

/** A FunctionNode's callee is checked by checkNode itself, so only its arguments recurse. */
function childrenToVisit(node: MathNode): MathNode[] {
  if (node.type === 'FunctionNode') return [...(node as FunctionNode).args];
  const children: MathNode[] = [];
  node.forEach((child) => children.push(child));
  return children;
}

function checkNode(node: MathNode, allow: TreeAllowList): void {
  if (!ALLOWED_NODE_TYPES.has(node.type)) throw refusedNodeType(node.type);
  switch (node.type) {
    case 'ConstantNode':
      return checkConstant((node as ConstantNode).value);
    case 'SymbolNode':
      return checkSymbol((node as SymbolNode).name, allow);
    case 'OperatorNode':
      checkOperator(node as OperatorNode, allow);
      if ((node as OperatorNode).fn === 'pow') checkMatrixPower((node as OperatorNode).args);
      return;
    case 'FunctionNode': {
      const call = node as FunctionNode;
      checkCall(call.fn, allow);
      if (call.fn.type === 'SymbolNode' && call.fn.name === 'pow') {
        checkMatrixPower(call.args);
      }
      return;
    }
    case 'ArrayNode':
      return checkMatrix(node);
    default:
      return;
  }
}

const NODE_TYPE_HINTS: Record<string, string> = {
  AssignmentNode: 'assignments (x = 1) are not allowed',
  FunctionAssignmentNode: 'defining functions (f(x) = ...) is not allowed',
  AccessorNode: 'property access (a.b, a[1]) is not allowed',
  IndexNode: 'indexing is not allowed',
  ObjectNode: 'object literals ({...}) are not allowed',
  RangeNode: 'ranges (1:10) are not allowed',
  BlockNode: 'only one expression per call is allowed',
  ConditionalNode: 'conditionals (a ? b : c) are not allowed',
  RelationalNode: 'comparisons are not allowed',
};

function refusedNodeType(type: string): ExpressionRejectedError {
  const hint = NODE_TYPE_HINTS[type] ?? `${type} is not allowed`;
  return new ExpressionRejectedError('node', hint);
}

function checkConstant(value: unknown): void {
  if (typeof value === 'number') return;
  const what = typeof value === 'string' ? 'strings are' : `"${String(value)}" is`;
  throw new ExpressionRejectedError('constant', `${what} not allowed; only numbers and units`);
}

function checkSymbol(name: string, allow: TreeAllowList): void {
  if (UNSAFE_NAMES.has(name)) throw unknownSymbol(name);
  if (allow.constants.has(name) || allow.isUnitName(name)) return;
  if (allow.functions.has(name)) {
    throw new ExpressionRejectedError(
      'symbol',
      `${name} is a function here; call it as ${name}(...)`,
    );
  }
  throw unknownSymbol(name);
}

function unknownSymbol(name: string): ExpressionRejectedError {
  return new ExpressionRejectedError(
    'symbol',
    `unknown name "${name}": only numbers, units (km, degF) and the constants pi, e, tau, phi are allowed`,
  );
}

function checkOperator(node: OperatorNode, allow: TreeAllowList): void {
  if (allow.operators.has(node.fn)) return;
  const op: string = node.op;
  throw new ExpressionRejectedError('operator', `operator "${op}" is not allowed`);
}

function checkCall(fn: MathNode, allow: TreeAllowList): void {
  const name = fn.type === 'SymbolNode' ? (fn as SymbolNode).name : undefined;
  if (name !== undefined && !UNSAFE_NAMES.has(name) && allow.functions.has(name)) return;
  throw new ExpressionRejectedError(
    'function',
    name === undefined
      ? 'only calls of named functions such as sqrt(16) are allowed'
      : `function "${name}" is not allowed; allowed: ${[...allow.functions].join(', ')}`,
  );
}

/** Largest exponent a matrix may be raised to. */
const MAX_MATRIX_EXPONENT = 64;

/**
 * A matrix base needs a small constant integer exponent: mathjs answers `[1,2;3,4]^1e300`
 * with the identity matrix (a wrong result, not an error), and a large exponent is also
 * needless work.
 */
function checkMatrixPower(args: readonly MathNode[]): void {
  const [base, exponent] = args;
  if (base === undefined || !containsMatrix(base)) return;
  const value = exponent?.type === 'ConstantNode' ? (exponent as ConstantNode).value : undefined;
  if (
    typeof value === 'number' &&
    Number.isInteger(value) &&
    Math.abs(value) <= MAX_MATRIX_EXPONENT
  ) {
    return;
  }
  throw new ExpressionRejectedError(
    'matrix_power',
    `a matrix may only be raised to a whole number from -${MAX_MATRIX_EXPONENT} to ${MAX_MATRIX_EXPONENT}`,
  );
}

function containsMatrix(node: MathNode): boolean {
  let found = false;
  node.traverse((n) => {
    if (n.type === 'ArrayNode') found = true;
  });
  return found;
}

/** Counts the scalar elements of a (possibly nested) matrix literal. */
function checkMatrix(node: MathNode): void {
  let elements = 0;
  const count = (n: MathNode): void => {
    if (n.type !== 'ArrayNode') {
      elements += 1;
      return;
    }
    for (const item of (n as ArrayNode).items) count(item);
  };
  count(node);
  if (elements > MAX_MATRIX_ELEMENTS) {
    throw new ExpressionRejectedError(
      'matrix_size',
      `matrices may hold at most ${MAX_MATRIX_ELEMENTS} elements; this one holds ${elements}`,
    );
  }
}
