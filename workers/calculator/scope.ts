import {
  absDependencies,
  acosDependencies,
  acoshDependencies,
  addDependencies,
  asinDependencies,
  asinhDependencies,
  atan2Dependencies,
  atanDependencies,
  atanhDependencies,
  cbrtDependencies,
  ceilDependencies,
  cosDependencies,
  coshDependencies,
  cotDependencies,
  create,
  cscDependencies,
  divideDependencies,
  eDependencies,
  expDependencies,
  expm1Dependencies,
  factorialDependencies,
  fixDependencies,
  floorDependencies,
  formatDependencies,
  gcdDependencies,
  hypotDependencies,
  lcmDependencies,
  log10Dependencies,
  log1pDependencies,
  log2Dependencies,
  logDependencies,
  maxDependencies,
  minDependencies,
  modDependencies,
  multiplyDependencies,
  nthRootDependencies,
  parseDependencies,
  phiDependencies,
  piDependencies,
  powDependencies,
  roundDependencies,
  secDependencies,
  signDependencies,
  sinDependencies,
  sinhDependencies,
  sqrtDependencies,
  subtractDependencies,
  tanDependencies,
  tanhDependencies,
  tauDependencies,
  toDependencies,
  unaryMinusDependencies,
  unaryPlusDependencies,
  type FactoryFunctionMap,
  type MathJsInstance,
  type MathNode,
} from 'mathjs';

/**
 * The restricted mathjs instance the calculator evaluates with. Built with `create()` from
 * the factories below only (not `all`), in plain `number` mode so no arbitrary-precision
 * arithmetic can run away. Every name an expression may call is in ALLOWED_FUNCTIONS; the
 * tree check in screen.ts rejects anything else before evaluation, and the names in
 * BLOCKED_FUNCTIONS are additionally replaced by throwing stubs (defence in depth, as the
 * mathjs "Security" page recommends).
 */
const FACTORIES: FactoryFunctionMap = {
  ...absDependencies,
  ...acosDependencies,
  ...acoshDependencies,
  ...addDependencies,
  ...asinDependencies,
  ...asinhDependencies,
  ...atan2Dependencies,
  ...atanDependencies,
  ...atanhDependencies,
  ...cbrtDependencies,
  ...ceilDependencies,
  ...cosDependencies,
  ...coshDependencies,
  ...cotDependencies,
  ...cscDependencies,
  ...divideDependencies,
  ...eDependencies,
  ...expDependencies,
  ...expm1Dependencies,
  ...factorialDependencies,
  ...fixDependencies,
  ...floorDependencies,
  ...formatDependencies,
  ...gcdDependencies,
  ...hypotDependencies,
  ...lcmDependencies,
  ...log10Dependencies,
  ...log1pDependencies,
  ...log2Dependencies,
  ...logDependencies,
  ...maxDependencies,
  ...minDependencies,
  ...modDependencies,
  ...multiplyDependencies,
  ...nthRootDependencies,
  ...parseDependencies,
  ...phiDependencies,
  ...piDependencies,
  ...powDependencies,
  ...roundDependencies,
  ...secDependencies,
  ...signDependencies,
  ...sinDependencies,
  ...sinhDependencies,
  ...sqrtDependencies,
  ...subtractDependencies,
  ...tanDependencies,
  ...tanhDependencies,
  ...tauDependencies,
  ...toDependencies,
  ...unaryMinusDependencies,
  ...unaryPlusDependencies,
};

/** Functions an expression may call by name, for example `sqrt(16)`. */
export const ALLOWED_FUNCTIONS: readonly string[] = [
  // arithmetic
  'add',
  'subtract',
  'multiply',
  'divide',
  'mod',
  'abs',
  'sign',
  'gcd',
  'lcm',
  'hypot',
  'min',
  'max',
  // powers, roots, exponentials, logarithms
  'pow',
  'sqrt',
  'cbrt',
  'nthRoot',
  'exp',
  'expm1',
  'log',
  'log10',
  'log2',
  'log1p',
  // trigonometry
  'sin',
  'cos',
  'tan',
  'sec',
  'csc',
  'cot',
  'asin',
  'acos',
  'atan',
  'atan2',
  'sinh',
  'cosh',
  'tanh',
  'asinh',
  'acosh',
  'atanh',
  // rounding
  'round',
  'floor',
  'ceil',
  'fix',
  // factorial: plain number mode, so n > 170 is Infinity at once (then "not finite")
  'factorial',
  // unit conversion, also written `5 km to miles` or `5 km in miles`
  'to',
];

/** Operator functions (`OperatorNode.fn`) an expression may use: `+ - * / ^ % mod ! to in`. */
export const ALLOWED_OPERATORS: readonly string[] = [
  'add',
  'subtract',
  'multiply',
  'divide',
  'pow',
  'mod',
  'unaryMinus',
  'unaryPlus',
  'factorial',
  'to',
];

/** Named constants an expression may use. Unit names (`km`, `degF`) are allowed separately. */
export const ALLOWED_CONSTANTS: readonly string[] = ['pi', 'e', 'tau', 'phi'];

/**
 * Functions that reach the parser or mutate the instance (mathjs "Security" page) plus the
 * configuration and factory entry points. They are never callable (the tree check allows
 * only ALLOWED_FUNCTIONS) and are also replaced by throwing stubs in the instance.
 */
export const BLOCKED_FUNCTIONS: readonly string[] = [
  'import',
  'createUnit',
  'evaluate',
  'parse',
  'compile',
  'parser',
  'simplify',
  'simplifyConstant',
  'simplifyCore',
  'derivative',
  'rationalize',
  'resolve',
  'reviver',
  'replacer',
  'chain',
  'config',
  'help',
];

interface CalculatorMath {
  /** The restricted instance (its `parse` and `import` are disabled stubs). */
  readonly math: MathJsInstance;
  /** The parser captured before `parse` was disabled in the instance. */
  readonly parse: (expression: string) => MathNode;
  /** True for a name mathjs resolves as a unit (`km`, `degF`), never for a namespace entry. */
  readonly isUnitName: (name: string) => boolean;
}

/** Builds the restricted instance. Costs a few milliseconds; build it once per thread. */
export function createCalculatorMath(): CalculatorMath {
  const math = create(FACTORIES, { number: 'number', precision: 64 });
  const parse = math.parse.bind(math) as (expression: string) => MathNode;
  // mathjs instantiates functions lazily and resolves their dependencies by name at that
  // moment: touch every allowed function before stubbing, so none is built against a stub.
  for (const name of [...ALLOWED_FUNCTIONS, ...ALLOWED_OPERATORS, ...ALLOWED_CONSTANTS]) {
    if (!(name in math)) throw new Error(`calculator scope is missing ${name}`);
    void (math as unknown as Record<string, unknown>)[name];
  }
  const stubs: Record<string, () => never> = {};
  for (const name of BLOCKED_FUNCTIONS) stubs[name] = disabled(name);
  math.import(stubs, { override: true });
  const unitClass = math.Unit as unknown as { isValuelessUnit(name: string): boolean };
  return {
    math,
    parse,
    isUnitName: (name) => !Object.hasOwn(math, name) && unitClass.isValuelessUnit(name),
  };
}

function disabled(name: string): () => never {
  return () => {
    throw new Error(`function ${name} is disabled in the calculator`);
  };
}
