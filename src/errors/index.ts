/**
 * `src/errors`: the one error catalogue and the base class every coded failure extends.
 * Stands alone (imports nothing of CAESAR's); every other module may import it.
 */
export { ERROR_CATALOGUE } from './catalogue.js';
export {
  CaesarError,
  WIRE_ERROR_CODES,
  errorEntry,
  errorMessage,
  isErrorCode,
  isWireErrorCode,
} from './caesar-error.js';
export type {
  CaesarErrorOptions,
  ErrorCode,
  MessageParams,
  WireErrorCode,
} from './caesar-error.js';
