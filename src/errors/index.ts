/**
 * `src/errors`: the one error catalogue (read through `errorEntry` and `errorMessage`), the
 * base class every coded failure extends and the factory that makes a module's error classes
 * from the catalogue (`errorClass`, `errorFamily`).
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
export { errorClass, errorFamily } from './error-class.js';
export type { CodeAndParams, CodedError, ErrorParts } from './error-class.js';
