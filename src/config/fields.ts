import { z } from 'zod';
import { durationSchema } from '../text/index.js';
import { SETTING_DURATION } from './setting-duration.js';
import { redactUserinfo, serverUrlProblem } from './urls.js';

/** How a key's value is read from an env var and shown in the reference. */
export type FieldKind =
  'string' | 'integer' | 'number' | 'boolean' | 'enum' | 'duration' | 'path' | 'url-list' | 'list';

/** Facts about a key that its zod type does not carry; read by the schema walker. */
export interface FieldMeta {
  /** Set when the kind cannot be read off the zod type (durations, paths, URL lists). */
  kind?: FieldKind;
  /** Shown as the default when it is computed at load time (the hostname, `<data_dir>/…`). */
  defaultText?: string;
  /** A sample value for the example file when the key has no default. */
  example?: string;
  /** The value is a credential: redacted by `redactSettings`, flagged in the reference. */
  secret?: boolean;
}

/** Registry of {@link FieldMeta} by schema instance (zod v4 registries). */
export const fieldMeta = z.registry<FieldMeta>();

/**
 * A duration (`500ms`, `5s`, `2 hours`, `1d` or a number of ms), parsed to milliseconds, at
 * least `min` ms. @default min 0
 */
export function durationField(min = 0) {
  return durationSchema({ ...SETTING_DURATION, min }).register(fieldMeta, { kind: 'duration' });
}

/**
 * A credential (`what`: `token`, `key`): a non-empty string, optional, flagged secret so
 * `caesar config show` and the reference never print it and `<ENV>_FILE` may name a file
 * that holds it.
 */
export function secretField(what: string, description: string) {
  return z
    .string()
    .min(1, `expected a non-empty ${what}`)
    .optional()
    .describe(description)
    .register(fieldMeta, { example: 'change-me', secret: true });
}

/**
 * A file or directory path. Relative paths resolve against the config file's directory when
 * written there, else against the working directory.
 */
export function pathField() {
  return z.string().min(1, 'expected a path').register(fieldMeta, { kind: 'path' });
}

/**
 * An http(s) URL of a backend a tool calls (Home Assistant, SearXNG). Credentials belong in
 * their own secret keys, so a URL with `user:pass@` is refused rather than printed.
 */
export function httpUrlField() {
  return z.string().superRefine((value, ctx) => {
    const problem = httpUrlProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });
}

/** Why `value` is not a usable http(s) backend URL, or undefined when it is one. */
function httpUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return `'${redactUserinfo(value)}' is not a URL (expected http://host:port or https://host)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `'${redactUserinfo(value)}' has scheme '${url.protocol}//'; expected http:// or https://`;
  }
  if (url.username !== '' || url.password !== '') {
    return 'credentials in the URL are refused: set them in their own key (a token or password)';
  }
  return undefined;
}

/** One NATS URL, a comma-separated list of them, or a YAML list; parsed to `string[]`. */
export function serverListField() {
  return z
    .union([z.string(), z.array(z.string())], {
      error: 'expected a URL, a comma-separated list of URLs or a list',
    })
    .transform((value, ctx) => {
      const urls = (typeof value === 'string' ? [value] : value)
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter((v) => v !== '');
      if (urls.length === 0) ctx.addIssue({ code: 'custom', message: 'expected at least one URL' });
      for (const url of urls) {
        const problem = serverUrlProblem(url);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      }
      return urls;
    })
    .register(fieldMeta, { kind: 'url-list' });
}

/** A number that may have a fraction (`0.7`); `z.number()` alone reads as a whole number. */
export function numberField(min: number, max: number) {
  return z
    .number({ error: `expected a number from ${min} to ${max}` })
    .min(min)
    .max(max)
    .register(fieldMeta, { kind: 'number' });
}

/**
 * A list of names: a YAML list, or one comma-separated string (as env vars give it); blanks
 * dropped. `item` checks each name.
 */
export function listField<T extends z.ZodType<string, string>>(item: T) {
  return z
    .union([z.string(), z.array(z.string())], {
      error: 'expected a list, or a comma-separated string',
    })
    .transform((value) =>
      (typeof value === 'string' ? value.split(',') : value)
        .map((v) => v.trim())
        .filter((v) => v !== ''),
    )
    .pipe(z.array(item))
    .register(fieldMeta, { kind: 'list' });
}
