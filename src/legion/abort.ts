import { TimeoutError } from '../protocol/index.js';

/** The reason an abort carries, as an Error (the SDK's own aborts are TimeoutErrors). */
export function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new TimeoutError(String(r));
}
