export { callServiceTool, createCallServiceTool } from './tool.js';
export type { CallServiceToolOptions } from './tool.js';
export {
  CallServiceInputSchema,
  CallServiceResultSchema,
  EntityOutcomeSchema,
  MAX_DATA_BYTES,
  MAX_DATA_DEPTH,
  MAX_SELECTOR_IDS,
  MAX_VERIFIED_ENTITIES,
} from './schema.js';
export type { CallServiceInput, CallServiceResult, EntityOutcome } from './schema.js';
export { describeEntity, expectedState, summarise } from './summary.js';
export type { Observed } from './summary.js';
export { prepareCall } from './targets.js';
export type { PreparedCall } from './targets.js';
export { DEFAULT_SETTLE } from './verify.js';
export type { SettleOptions } from './verify.js';
