import { ERROR_CATALOGUE, type ErrorEntry, type ErrorKind } from './catalogue.js';

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The codes that travel on the wire: reply envelopes and ToolCallReports. */
export type WireErrorCode = {
  [C in ErrorCode]: (typeof ERROR_CATALOGUE)[C]['kind'] extends 'worker' | 'brain' ? C : never;
}[ErrorCode];

/** Codes of the given kinds, in catalogue order. */
function codesOf<K extends ErrorKind>(...kinds: K[]): ErrorCode[] {
  return (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter((c) =>
    (kinds as ErrorKind[]).includes(ERROR_CATALOGUE[c].kind),
  );
}

/** Every wire code, for the envelope schema's enum. */
export const WIRE_ERROR_CODES = codesOf('worker', 'brain') as [WireErrorCode, ...WireErrorCode[]];

/** Is `code` one of the catalogue's codes (a string from the wire, say)? */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CATALOGUE, code);
}

/** Is `code` a code that may travel in a reply envelope? */
export function isWireErrorCode(code: unknown): code is WireErrorCode {
  return isErrorCode(code) && (WIRE_ERROR_CODES as string[]).includes(code);
}

type Placeholders<T extends string> = T extends `${string}{${infer K}}${infer Rest}`
  ? K | Placeholders<Rest>
  : never;

/** The values a code's message template needs, by placeholder name. */
export type MessageParams<C extends ErrorCode> = Readonly<
  Record<Placeholders<(typeof ERROR_CATALOGUE)[C]['message']>, string | number>
>;

/** The catalogue's message for `code`, its placeholders filled from `params`. */
export function errorMessage<C extends ErrorCode>(code: C, params: MessageParams<C>): string {
  const values = params as Readonly<Record<string, string | number>>;
  return ERROR_CATALOGUE[code].message.replace(/\{(\w+)\}/g, (_, name: string) =>
    String(values[name] ?? `{${name}}`),
  );
}

/** The catalogue entry of `code`. */
export function errorEntry(code: ErrorCode): ErrorEntry {
  return ERROR_CATALOGUE[code];
}

export interface CaesarErrorOptions {
  tool?: string;
  decisionId?: string;
  /** Overrides the catalogue default. */
  retryable?: boolean;
  /** Machine-readable detail, for example the failing field paths of `invalid_input`. */
  details?: unknown;
  cause?: unknown;
}

/**
 * Base class of every coded failure in CAESAR. The code comes from the one catalogue
 * (src/errors/catalogue.ts), which gives its status, its default `retryable` and its message
 * template; `retryable` is a property of the failure, set where it happens, never guessed from
 * message text. Subclasses add typed fields (`path`, `issues`, `sqliteCode`, ...).
 */
export class CaesarError extends Error {
  override readonly name: string = 'CaesarError';
  /** A catalogue code; a subclass declares the ones it uses. */
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly tool: string | undefined;
  readonly decisionId: string | undefined;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, options: CaesarErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? ERROR_CATALOGUE[code].retryable;
    this.tool = options.tool;
    this.decisionId = options.decisionId;
    this.details = options.details;
  }

  /** An error whose message is the catalogue's template for `code`, filled from `params`. */
  static of<C extends ErrorCode>(
    code: C,
    params: MessageParams<C>,
    options: CaesarErrorOptions = {},
  ): CaesarError & { readonly code: C } {
    return new CaesarError(code, errorMessage(code, params), options) as CaesarError & {
      readonly code: C;
    };
  }

  /** The numeric status for HTTP answers and the `Nats-Service-Error-Code` header. */
  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }

  /** Is this error, by class and code, one with this code? Narrows without duck-typing. */
  static is<C extends ErrorCode>(err: unknown, code: C): err is CaesarError & { readonly code: C } {
    return err instanceof CaesarError && err.code === code;
  }
}
