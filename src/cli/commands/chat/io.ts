import { consoleIo, type ApiCliIo } from '../../brain-client/command.js';
import type { ApiFlags } from '../../program/flags.js';
import { terminal } from '../../program/terminal.js';

/** `caesar chat`'s flags, and where its output goes. */

export interface ChatFlags extends ApiFlags {
  /** Continue this session instead of starting one. */
  session?: string;
  json?: boolean;
  verbose?: boolean;
}

export interface ChatCliIo extends ApiCliIo {
  /** Whether `input` is a terminal: interactive session. @default process.stdin.isTTY */
  interactive?: boolean;
  /** Where the interactive prompt goes. @default process.stdout */
  output?: NodeJS.WritableStream;
  /**
   * Writes streamed reply text to stdout as it arrives, adding no newline. Without it, the
   * streamed text is printed as one line (`out`) when the turn ends.
   * @default `terminal.write`: stdout, control characters escaped
   */
  write?(text: string): void;
}

export const chatConsoleIo: ChatCliIo = { ...consoleIo, write: terminal.write };
