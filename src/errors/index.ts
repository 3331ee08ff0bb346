/**
 * `src/errors`: the one error catalogue (read through `errorEntry` and `errorMessage`) and the
 * base class every coded failure extends.
 * Stands alone (imports nothing of CAESAR's); every other module may import it.
 */
export {
  CaesarError,
  WIRE_ERROR_CODES,
  errorEntry,
  errorMessage,
  isErrorCode,
  isWireErrorCode,
} from './caesar-error.js';
export type { CaesarErrorOptions, MessageParams, WireErrorCode } from './caesar-error.js';
