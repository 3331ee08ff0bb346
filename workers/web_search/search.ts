import { CaesarError, wholeMsSince, type ToolContext } from '../../src/legion/index.js';
import type { BackendAnswer, SearchBackend, SearchRequest } from './backends/backend.js';
import type { BackendName } from './config.js';

/**
 * The fallback: backends are tried in the configured order; a backend that fails with a coded
 * error (`upstream_empty`, `backend_error`, `timeout`, `not_configured`) hands over to the
 * next, and the answer names the backend that answered. Only the call's own end (its
 * deadline, a shutdown) stops the round early.
 */

type Logger = ToolContext['logger'];

interface BackendFailure {
  readonly backend: BackendName;
  readonly error: CaesarError;
}

export interface SearchOutcome {
  readonly backend: BackendName;
  readonly answer: BackendAnswer;
  /** Backends that failed before this one answered, in order. */
  readonly failures: readonly BackendFailure[];
}

export async function searchInOrder(
  backends: readonly SearchBackend[],
  request: SearchRequest,
  signal: AbortSignal,
  logger: Logger,
): Promise<SearchOutcome> {
  const failures: BackendFailure[] = [];
  for (const backend of backends) {
    signal.throwIfAborted();
    const started = performance.now();
    try {
      const answer = await backend.search(request, signal);
      const ms = wholeMsSince(started);
      logger.debug({ backend: backend.name, found: answer.candidates.length, ms }, 'searched');
      return { backend: backend.name, answer, failures };
    } catch (err) {
      // The call itself ended (deadline, shutdown): its reason is the answer, not a fallback.
      signal.throwIfAborted();
      if (!(err instanceof CaesarError)) throw err;
      logger.warn(
        { backend: backend.name, code: err.code, retryable: err.retryable, reason: err.message },
        'search backend failed; trying the next one',
      );
      failures.push({ backend: backend.name, error: err });
    }
  }
  throw allFailed(failures);
}

/**
 * One backend's failure is thrown as it is. Several are folded into one error that lists
 * every backend's reason; its code is the first retryable failure's (the one most likely to
 * clear: an engine outage or a quota, rather than a rejected key), else the first one's.
 */
function allFailed(failures: readonly BackendFailure[]): CaesarError {
  const [first] = failures;
  if (first === undefined) throw CaesarError.of('internal', { reason: 'no search backend to try' });
  if (failures.length === 1) return first.error;
  const chosen = failures.find((f) => f.error.retryable) ?? first;
  const reasons = failures.map((f) => `${f.backend}: ${f.error.message}`).join(' | ');
  return new CaesarError(chosen.error.code, `every search backend failed. ${reasons}`, {
    retryable: chosen.error.retryable,
    details: {
      backends: failures.map((f) => ({
        backend: f.backend,
        code: f.error.code,
        retryable: f.error.retryable,
        message: f.error.message,
      })),
    },
    cause: chosen.error,
  });
}
