import { z } from 'zod';
import { settingName, hostTimeZone, isTimeZone } from '../../src/legion/index.js';

/** `tools.calendar` in caesar.yaml: shared by every calendar tool (the seed ADR's name). */
export const CONFIG_SECTION = 'calendar';

/** @default 10 s: one CalDAV request (connect, headers and body). */
const DEFAULT_TIMEOUT_SECONDS = 10;
/** @default 1000: occurrences one recurring event may add to one answer. */
const DEFAULT_MAX_OCCURRENCES = 1000;

const TRUE_WORDS = ['true', '1', 'yes', 'on'];
const BOOL_WORDS = [...TRUE_WORDS, 'false', '0', 'no', 'off'];

/** A boolean from YAML (`true`) or the environment (`"false"`, `"0"`); coerce would read "false" as true. */
const boolish = z
  .union([z.boolean(), z.string().trim().toLowerCase().pipe(z.enum(BOOL_WORDS))])
  .transform((v) => (typeof v === 'boolean' ? v : TRUE_WORDS.includes(v)));

/** A string key that YAML may have read as a number (`password: 123456`). */
const text = z.union([z.string(), z.number()]).transform(String).pipe(z.string().trim().min(1));

const url = z
  .string()
  .trim()
  .pipe(z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' }))
  .refine((u) => !/^[a-z]+:\/\/[^/?#]*@/i.test(u), {
    error: 'must not carry credentials; set username and password instead',
  });

/** `"Family, Work"` or `[Family, Work]`: trimmed, empty entries dropped, duplicates removed. */
const names = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => {
    const list = (typeof v === 'string' ? v.split(',') : v).map((n) => n.trim()).filter(Boolean);
    return [...new Set(list)];
  })
  .pipe(z.array(z.string().max(200)).max(100));

const timeZone = z.string().trim().refine(isTimeZone, {
  error: 'expected an IANA time zone this runtime knows, such as Europe/Berlin',
});

/**
 * The raw section, strict: an unknown key fails when the worker starts, with its env name.
 * Values from the environment arrive as strings.
 */
export const CalendarConfigSchema = z
  .strictObject({
    caldav_url: url.optional(),
    username: text
      .refine((u) => !u.includes(':'), { error: 'must not contain ":" (HTTP Basic auth)' })
      .optional(),
    password: text.optional(),
    calendar_names: names.optional(),
    timezone: timeZone.optional(),
    timeout_seconds: z.coerce.number().positive().max(120).default(DEFAULT_TIMEOUT_SECONDS),
    verify_ssl: boolish.default(true),
    max_occurrences: z.coerce.number().int().min(1).max(100_000).default(DEFAULT_MAX_OCCURRENCES),
  })
  .transform((raw): CalendarConfig =>
    Object.freeze({
      url: raw.caldav_url,
      username: raw.username,
      password: raw.password,
      calendarNames:
        raw.calendar_names && raw.calendar_names.length > 0
          ? Object.freeze(raw.calendar_names)
          : undefined,
      timeZone: raw.timezone,
      timeoutMs: Math.round(raw.timeout_seconds * 1000),
      verifyTls: raw.verify_ssl,
      maxOccurrences: raw.max_occurrences,
    }),
  );

/** The section normalised and frozen: what `ctx.config` holds. */
export interface CalendarConfig {
  /** `caldav_url`: the CalDAV server (or a principal, a calendar home or one calendar). */
  readonly url: string | undefined;
  readonly username: string | undefined;
  /** Secret. Named `password` so the logger's redaction covers it. */
  readonly password: string | undefined;
  /** `calendar_names`: the only calendars read; undefined reads all. */
  readonly calendarNames: readonly string[] | undefined;
  /**
   * IANA zone for output, date-only input, floating times and all-day events. Undefined:
   * the host's, looked up by each call ({@link callTimeZone}), not when the worker starts,
   * so an idle worker maps none of ICU's date data (ADR 0048).
   */
  readonly timeZone: string | undefined;
  readonly timeoutMs: number;
  readonly verifyTls: boolean;
  readonly maxOccurrences: number;
}

/** The zone a call answers in: `timezone`, else the host's. */
export function callTimeZone(config: Pick<CalendarConfig, 'timeZone'>): string {
  return config.timeZone ?? hostTimeZone();
}

/** A configured section: what the CalDAV client needs. */
export interface CalDavSettings extends CalendarConfig {
  readonly url: string;
  readonly username: string;
  readonly password: string;
}

/** The keys still to set, in the order an operator sets them. */
export function missingKeys(config: CalendarConfig): string[] {
  if (config.url === undefined) return ['caldav_url'];
  const missing: string[] = [];
  if (config.username === undefined) missing.push('username');
  if (config.password === undefined) missing.push('password');
  return missing;
}

export function isConfigured(config: CalendarConfig): config is CalDavSettings {
  return missingKeys(config).length === 0;
}

/** `calendar_read is not configured: set CAESAR_TOOLS__CALENDAR__CALDAV_URL (...)`. */
export function notConfiguredMessage(missing: readonly string[]): string {
  return `calendar_read is not configured: ${whatToSet(missing)}`;
}

/**
 * The reason of its `not_configured` error, which the catalogue's template opens with "not
 * configured: ": `set CAESAR_TOOLS__CALENDAR__CALDAV_URL (...) for calendar_read`.
 */
export function notConfiguredReason(missing: readonly string[]): string {
  return `${whatToSet(missing)} for calendar_read`;
}

/** `set CAESAR_TOOLS__CALENDAR__CALDAV_URL (tools.calendar.caldav_url) and …`: the preflight's detail. */
export function whatToSet(missing: readonly string[]): string {
  const keys = missing.map((k) =>
    k === 'password'
      ? `${settingName(CONFIG_SECTION, k)} (or ${envName(k)}_FILE naming a file that holds it)`
      : settingName(CONFIG_SECTION, k),
  );
  return `set ${keys.join(' and ')}`;
}

/** `CAESAR_TOOLS__CALENDAR__USERNAME`. */
export function envName(key: string): string {
  return settingName(CONFIG_SECTION, key).split(' ')[0]!;
}
