import { ERROR_CATALOGUE, type ErrorEntry } from './catalogue.js';
import {
  CaesarError,
  errorMessage,
  type CaesarErrorOptions,
  type ErrorCode,
  type MessageParams,
} from './caesar-error.js';

/**
 * Error classes generated from the catalogue, in the style of fastify's `createError(code,
 * message, statusCode)` (ADR 0087): `errorClass(code)` returns a class whose `name`, `code`,
 * `status`, `retryable` and message template are the catalogue's, so a module declares no
 * class of its own. `instanceof` works (the class extends `CaesarError`), and the message is
 * always the template filled from named values: a value the template does not name, or one
 * it names and the throw site leaves out, is a compile error (`MessageParams`).
 */

/** An error of one of `C`'s codes, with the typed fields its class adds. */
export type CodedError<C extends ErrorCode, F extends object = object> = CaesarError & {
  readonly code: C;
} & Readonly<F>;

/** What a class's constructor makes of its arguments: the code, the template's values, fields. */
export type ErrorParts<C extends ErrorCode, F extends object> = {
  [K in C]: {
    readonly code: K;
    readonly params: MessageParams<K>;
    /** Typed fields the error carries beside the message (`file`, `issues`, `sqliteCode`). */
    readonly fields?: F;
    readonly options?: CaesarErrorOptions;
  };
}[C];

/** A generated class: `new` it with the arguments its build function takes. */
export interface CodedErrorClass<C extends ErrorCode, A extends unknown[], F extends object> {
  new (...args: A): CodedError<C, F>;
  readonly prototype: CodedError<C, F>;
  /** The codes an instance may carry (one, unless the class was made for several). */
  readonly codes: readonly C[];
}

/** The class name of `code`: the catalogue's `name`, else `policy_closed` -> `PolicyClosedError`. */
export function errorClassName(code: ErrorCode): string {
  const entry: ErrorEntry = ERROR_CATALOGUE[code];
  if (entry.name !== undefined) return entry.name;
  return `${code.replace(/(?:^|_)([a-z0-9])/g, (_, c: string) => c.toUpperCase())}Error`;
}

type Plain<C extends ErrorCode> = [params: MessageParams<C>, options?: CaesarErrorOptions];

/** The arguments of a class for several codes: the code, then that code's values. */
export type CodeAndParams<C extends ErrorCode> = {
  [K in C]: [code: K, params: MessageParams<K>, options?: CaesarErrorOptions];
}[C];

/** A class for `code` whose constructor takes the template's values (and the usual options). */
export function errorClass<C extends ErrorCode>(code: C): CodedErrorClass<C, Plain<C>, object>;
/** A class for `code` whose constructor turns its own arguments into the template's values. */
export function errorClass<C extends ErrorCode, A extends unknown[], F extends object = object>(
  code: C,
  build: (...args: A) => {
    readonly params: MessageParams<C>;
    readonly fields?: F;
    readonly options?: CaesarErrorOptions;
  },
): CodedErrorClass<C, A, F>;
/** A class for several codes whose constructor takes the code, then its template's values. */
export function errorClass<C extends ErrorCode>(
  codes: readonly [C, ...C[]],
): CodedErrorClass<C, CodeAndParams<C>, object>;
/** A class for several codes: the build function says which one each error has. */
export function errorClass<C extends ErrorCode, A extends unknown[], F extends object = object>(
  codes: readonly [C, ...C[]],
  build: (...args: A) => ErrorParts<C, F>,
): CodedErrorClass<C, A, F>;
export function errorClass(
  codeOrCodes: ErrorCode | readonly ErrorCode[],
  build?: (...args: unknown[]) => {
    code?: ErrorCode;
    params: Readonly<Record<string, string | number>>;
    fields?: object;
    options?: CaesarErrorOptions;
  },
): CodedErrorClass<ErrorCode, unknown[], object> {
  const codes: readonly ErrorCode[] = typeof codeOrCodes === 'string' ? [codeOrCodes] : codeOrCodes;
  const [first] = codes as readonly [ErrorCode, ...ErrorCode[]];
  const generated = class extends CaesarError {
    static readonly codes = codes;
    constructor(...args: unknown[]) {
      const plain = typeof codeOrCodes === 'string' ? args : args.slice(1);
      const parts = build
        ? build(...args)
        : {
            ...(typeof codeOrCodes === 'string' ? {} : { code: args[0] as ErrorCode }),
            params: plain[0] as Readonly<Record<string, string | number>>,
            options: plain[1] as CaesarErrorOptions | undefined,
          };
      const code = parts.code ?? first;
      super(code, errorMessage(code, parts.params as never), parts.options);
      (this as { name: string }).name = errorClassName(code);
      if (parts.fields !== undefined) Object.assign(this, parts.fields);
    }
  };
  Object.defineProperty(generated, 'name', { value: errorClassName(first) });
  return generated;
}

/** A set of codes `instanceof` can test, for a module's "any of my errors" (`PolicyError`). */
export interface ErrorFamily<C extends ErrorCode> {
  readonly name: string;
  readonly codes: readonly C[];
  [Symbol.hasInstance](value: unknown): value is CodedError<C>;
}

/** `err instanceof family` is true for a `CaesarError` with one of `codes`. */
export function errorFamily<C extends ErrorCode>(
  name: string,
  codes: readonly [C, ...C[]],
): ErrorFamily<C> {
  const known: readonly ErrorCode[] = codes;
  return {
    name,
    codes,
    [Symbol.hasInstance]: (value: unknown): value is CodedError<C> =>
      value instanceof CaesarError && known.includes(value.code),
  };
}
