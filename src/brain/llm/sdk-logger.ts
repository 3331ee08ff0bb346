import type { Logger } from '../../log/index.js';

/** The logger shape both official SDKs accept (`ClientOptions.logger`). */
interface SdkLogger {
  error(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  debug(message: string, ...rest: unknown[]): void;
}

/**
 * Routes an SDK's own log lines into ours (never to the console), at warn and below
 * debug. Only the message is kept: the SDKs' extra arguments can hold request options.
 */
export function sdkLogger(logger: Logger, provider: string): SdkLogger {
  const log = logger.child({ component: 'llm-sdk', provider });
  return {
    error: (message) => log.warn(message),
    warn: (message) => log.warn(message),
    info: (message) => log.debug(message),
    debug: (message) => log.debug(message),
  };
}
