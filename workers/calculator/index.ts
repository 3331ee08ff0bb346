export { calculatorTool, createCalculatorTool } from './tool.js';
export { createEvaluator, DEFAULT_RESOURCE_LIMITS } from './evaluator.js';
export type { Evaluator, EvaluatorOptions, EvaluateOptions } from './evaluator.js';
export { CalcInputSchema, CalcResultSchema } from './schema.js';
export type { CalcInput, CalcResult } from './schema.js';
export {
  ALLOWED_FUNCTIONS,
  ALLOWED_OPERATORS,
  ALLOWED_CONSTANTS,
  BLOCKED_FUNCTIONS,
} from './scope.js';
export {
  MAX_EXPRESSION_LENGTH,
  MAX_BRACKET_DEPTH,
  MAX_TREE_DEPTH,
  MAX_TREE_NODES,
  MAX_MATRIX_ELEMENTS,
} from './screen.js';
