import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/**
 * An API key that cannot leak by accident: it prints, logs and serialises as `[redacted]`
 * (`String()`, `JSON.stringify`, pino, `util.inspect`); only `reveal()` gives the value, and
 * only the backend that sends it as a header calls it.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

/**
 * Replaces every occurrence of a secret in text that came from elsewhere (an upstream error
 * body) before it reaches a message, a note or a log line.
 */
export function redactSecrets(text: string, secrets: readonly Secret[]): string {
  let out = text;
  for (const secret of secrets) {
    const value = secret.reveal();
    if (value.length > 0) out = out.split(value).join(REDACTED);
  }
  return out;
}
