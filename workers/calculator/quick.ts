import { formatNumber, mathMod, mathRound } from './format-number.js';
import type { CalcResult } from './schema.js';

/**
 * The quick path (ADR 0050): plain number arithmetic evaluated in the worker's own thread,
 * without mathjs and without the hop to an evaluation thread. It knows a small subset of
 * the calculator's language: decimal numbers, `+ - * / ^`, `%` and `mod` as modulo, unary `-`
 * and `+`, parentheses, the constants pi, e, tau and phi, and the functions in
 * QUICK_FUNCTIONS; and it answers
 * only when the value is a finite number computed exactly as mathjs computes it (the same
 * JavaScript operations in the same order, the same formatting). For anything else
 * (another function or operator, units, implicit multiplication, `%` as a percentage, a
 * result mathjs
 * would make complex or refuse, a tree near the tree check's bounds) it answers
 * `undefined` and the expression goes to mathjs in an evaluation thread, so every refusal
 * still comes from there. test/unit/calculator/quick.test.ts proves the answers identical
 * to mathjs's on generated expressions.
 *
 * Bounded by construction: one left-to-right pass over a pre-screened string (at most
 * 1,000 characters), no backtracking, each character read once, recursion no deeper than
 * MAX_HEIGHT; every step is one floating-point operation.
 */

/** Significant digits of `result`, as format.ts gives them. */
const RESULT_PRECISION = 14;
/**
 * Tree bounds, kept below the tree check's (500 nodes, 64 levels, screen.ts) so near them
 * mathjs and the tree check decide.
 */
const MAX_NODES = 450;
const MAX_HEIGHT = 56;

/** Functions the quick path computes, each exactly as mathjs does for real numbers. */
const QUICK_FUNCTIONS: Readonly<Record<string, (args: number[]) => number | undefined>> = {
  // mathjs: Math.sqrt for x >= 0, a complex number below
  sqrt: ([x, ...rest]) => (rest.length === 0 && x! >= 0 ? Math.sqrt(x!) : undefined),
  sin: one(Math.sin),
  cos: one(Math.cos),
  tan: one(Math.tan),
  exp: one(Math.exp),
  abs: one(Math.abs),
  // mathjs: rounds half up in decimal, within its tolerance (format-number.ts)
  round: ([x, n, ...rest]) => (rest.length === 0 ? mathRound(x!, n ?? 0) : undefined),
  // mathjs: Math.log for x >= 0 (complex below); log(x, base) is log(x) / log(base)
  log: ([x, base, ...rest]) => {
    if (rest.length > 0 || !(x! >= 0)) return undefined;
    if (base === undefined) return Math.log(x!);
    return base >= 0 ? Math.log(x!) / Math.log(base) : undefined;
  },
};

function one(fn: (x: number) => number): (args: number[]) => number | undefined {
  return (args) => (args.length === 1 ? fn(args[0]!) : undefined);
}

/** mathjs's number constants (`lib/esm/plain/number/constants.js`). */
const CONSTANTS: Readonly<Record<string, number>> = {
  pi: Math.PI,
  e: Math.E,
  tau: 2 * Math.PI,
  phi: 1.618033988749895,
};

/**
 * The answer for a pre-screened expression (screen.ts `prescreen`) when the quick path can
 * give exactly mathjs's, else `undefined`.
 */
export function quickCalculate(expression: string): CalcResult | undefined {
  const parser = new QuickParser(expression);
  let value: number;
  try {
    value = parser.parse();
  } catch (err) {
    if (err === NOT_QUICK) return undefined;
    throw err;
  }
  if (!Number.isFinite(value)) return undefined; // mathjs's own refusal, from the thread
  return { expression, result: formatNumber(value, RESULT_PRECISION), value };
}

/** Thrown (never built anew: no stack to capture) when the quick path hands over. */
const NOT_QUICK = new Error('not for the quick path');

/** A parsed subtree: its value and its height in mathjs's tree. */
interface Sub {
  readonly v: number;
  readonly h: number;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isNameStart = (c: string | undefined): boolean =>
  c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_');
const isNamePart = (c: string | undefined): boolean => isNameStart(c) || isDigit(c);

/**
 * Recursive descent over mathjs's precedence for the operators it knows: `+ -` (left),
 * `* /` (left), unary `- +`, `^` (right, its exponent a unary expression), then numbers,
 * names, calls and parentheses. Each level builds the node mathjs would (so node count and
 * height match its tree) and computes the node's value at once.
 */
class QuickParser {
  private i = 0;
  private nodes = 0;

  constructor(private readonly s: string) {}

  parse(): number {
    const root = this.additive(0);
    this.blanks();
    if (this.i !== this.s.length) throw NOT_QUICK;
    return root.v;
  }

  private blanks(): void {
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i += 1;
  }

  /** One more node of height `h`; hands over near the tree check's bounds. */
  private node(v: number, h: number): Sub {
    this.nodes += 1;
    if (this.nodes > MAX_NODES || h > MAX_HEIGHT) throw NOT_QUICK;
    return { v, h };
  }

  private additive(depth: number): Sub {
    let left = this.multiplicative(depth);
    for (;;) {
      this.blanks();
      const op = this.s[this.i];
      if (op !== '+' && op !== '-') return left;
      this.i += 1;
      const right = this.multiplicative(depth);
      const v = op === '+' ? left.v + right.v : left.v - right.v;
      left = this.node(v, Math.max(left.h, right.h) + 1);
    }
  }

  private multiplicative(depth: number): Sub {
    let left = this.unary(depth);
    for (;;) {
      this.blanks();
      const op = this.multiplicativeOperator();
      if (op === undefined) return left;
      const right = this.unary(depth);
      let v: number;
      if (op === '*') v = left.v * right.v;
      else if (op === '/') v = left.v / right.v;
      else v = mathMod(left.v, right.v);
      left = this.node(v, Math.max(left.h, right.h) + 1);
    }
  }

  /** Reads `*`, `/`, or `%` or `mod` as modulo; undefined (nothing read) at anything else. */
  private multiplicativeOperator(): '*' | '/' | 'mod' | undefined {
    const { s } = this;
    const c = s[this.i];
    if (c === '*' || c === '/') {
      this.i += 1;
      return c;
    }
    if (c === '%') {
      // mathjs: modulo when an operand follows, a percentage otherwise
      let j = this.i + 1;
      while (s[j] === ' ' || s[j] === '\t') j += 1;
      const next = s[j];
      if (!(isNamePart(next) || next === '.' || next === '(' || next === '-' || next === '+')) {
        throw NOT_QUICK;
      }
      this.i += 1;
      return 'mod';
    }
    if (s.startsWith('mod', this.i) && !isNamePart(s[this.i + 3])) {
      this.i += 3;
      return 'mod';
    }
    // an operand right after an operand is implicit multiplication: mathjs's
    if (c === '(' || c === '.' || isNamePart(c)) throw NOT_QUICK;
    return undefined;
  }

  private unary(depth: number): Sub {
    if (depth > MAX_HEIGHT) throw NOT_QUICK;
    this.blanks();
    const op = this.s[this.i];
    if (op !== '-' && op !== '+') return this.power(depth);
    this.i += 1;
    const inner = this.unary(depth + 1);
    return this.node(op === '-' ? -inner.v : inner.v, inner.h + 1);
  }

  private power(depth: number): Sub {
    const base = this.primary(depth);
    this.blanks();
    const next = this.s[this.i];
    if (next === '!' || next === "'") throw NOT_QUICK; // factorial, transpose
    if (next !== '^') return base;
    this.i += 1;
    const exponent = this.unary(depth + 1);
    const [x, y] = [base.v, exponent.v];
    // mathjs: Math.pow for an integer exponent or a base >= 0, a complex number otherwise;
    // and its own rule for an infinite exponent
    if (!Number.isFinite(x) || !Number.isFinite(y)) throw NOT_QUICK;
    if (!Number.isInteger(y) && x < 0) throw NOT_QUICK;
    return this.node(Math.pow(x, y), Math.max(base.h, exponent.h) + 1);
  }

  private primary(depth: number): Sub {
    this.blanks();
    const c = this.s[this.i];
    if (c === '(') {
      this.i += 1;
      const inner = this.additive(depth + 1);
      this.blanks();
      if (this.s[this.i] !== ')') throw NOT_QUICK;
      this.i += 1;
      return this.node(inner.v, inner.h + 1); // mathjs keeps a ParenthesisNode
    }
    if (isDigit(c) || c === '.') return this.node(this.number(), 0);
    if (isNameStart(c)) return this.name(depth);
    throw NOT_QUICK;
  }

  /** A decimal number as mathjs tokenizes it; anything unusual hands over. */
  private number(): number {
    const { s } = this;
    const start = this.i;
    while (isDigit(s[this.i])) this.i += 1;
    if (s[this.i] === '.') {
      // `2./3` and friends are mathjs's element-wise operators
      const after = s[this.i + 1];
      if (after === '/' || after === '*' || after === '^') throw NOT_QUICK;
      this.i += 1;
      while (isDigit(s[this.i])) this.i += 1;
    }
    if (this.i - start === 1 && s[start] === '.') throw NOT_QUICK; // a lone dot
    if (s[this.i] === 'e' || s[this.i] === 'E') {
      let j = this.i + 1;
      if (s[j] === '+' || s[j] === '-') j += 1;
      if (!isDigit(s[j])) throw NOT_QUICK;
      while (isDigit(s[j])) j += 1;
      this.i = j;
    }
    // a letter, digit, `_` or dot right after: hex, units, implicit multiplication...
    if (isNamePart(s[this.i]) || s[this.i] === '.') throw NOT_QUICK;
    return Number(s.slice(start, this.i));
  }

  /** A constant, or a call of one of QUICK_FUNCTIONS. */
  private name(depth: number): Sub {
    const { s } = this;
    const start = this.i;
    while (isNamePart(s[this.i])) this.i += 1;
    const name = s.slice(start, this.i);
    this.blanks();
    if (s[this.i] !== '(') {
      const value = Object.hasOwn(CONSTANTS, name) ? CONSTANTS[name] : undefined;
      if (value === undefined) throw NOT_QUICK;
      return this.node(value, 0);
    }
    const fn = Object.hasOwn(QUICK_FUNCTIONS, name) ? QUICK_FUNCTIONS[name] : undefined;
    if (fn === undefined) throw NOT_QUICK;
    this.i += 1;
    const args: number[] = [];
    let h = 0;
    for (;;) {
      const arg = this.additive(depth + 1);
      args.push(arg.v);
      h = Math.max(h, arg.h);
      this.blanks();
      const sep = s[this.i];
      this.i += 1;
      if (sep === ')') break;
      if (sep !== ',') throw NOT_QUICK;
    }
    const value = fn(args);
    if (value === undefined) throw NOT_QUICK;
    return this.node(value, h + 1);
  }
}
