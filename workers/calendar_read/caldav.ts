import { calendarQuery, propfind, type DAVDepth, type DAVResponse } from 'tsdav';
import {
  BackendError,
  CaesarError,
  HttpBackend,
  NotConfiguredError,
  settingName,
} from '../../src/legion/index.js';
import { CONFIG_SECTION, envName, type CalDavSettings } from './config.js';

/**
 * The CalDAV side: tsdav builds and parses the WebDAV XML; every request goes through the
 * SDK's bounded `HttpBackend.fetch` (timeouts, the call's signal, a body cap, same-origin
 * only), so failures arrive as the SDK's `HttpFailure` (`timeout` / `backend_error`).
 * Discovery: PROPFIND on `caldav_url` (a calendar itself, a calendar home, a principal or the
 * server root) -> `current-user-principal` -> `calendar-home-set` -> the calendars in it.
 */

/** One calendar collection that holds events. */
export interface CalendarInfo {
  /** Its display name (or, without one, the last segment of its path). */
  readonly name: string;
  readonly url: string;
}

/** One calendar object resource: its URL and iCalendar text. */
export interface CalendarObject {
  readonly href: string;
  readonly data: string;
}

/** @default 60 s: how long the calendar list is reused before it is discovered again. */
const CALENDAR_CACHE_TTL_MS = 60_000;
/** Largest CalDAV answer read: a year of a busy calendar, masters only, fits. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
const BACKEND_NAME = 'CalDAV server';

const SELF_PROPS = {
  'd:current-user-principal': {},
  'd:resourcetype': {},
  'd:displayname': {},
  'c:calendar-home-set': {},
  'c:supported-calendar-component-set': {},
};
const LIST_PROPS = {
  'd:resourcetype': {},
  'd:displayname': {},
  'c:supported-calendar-component-set': {},
};

interface CalDavClientOptions {
  /** Per-request timeout; a preflight passes a shorter one. @default settings.timeoutMs */
  timeoutMs?: number;
}

export class CalDavClient {
  readonly backend: HttpBackend;
  #cache: { at: number; list: readonly CalendarInfo[] } | undefined;

  constructor(settings: CalDavSettings, options: CalDavClientOptions = {}) {
    const credentials = Buffer.from(`${settings.username}:${settings.password}`, 'utf8');
    this.backend = new HttpBackend({
      name: BACKEND_NAME,
      baseUrl: settings.url,
      timeoutMs: options.timeoutMs ?? settings.timeoutMs,
      verifyTls: settings.verifyTls,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      headers: { authorization: `Basic ${credentials.toString('base64')}` },
    });
  }

  /** The calendars, from a list at most {@link CALENDAR_CACHE_TTL_MS} old. */
  async calendars(signal?: AbortSignal): Promise<readonly CalendarInfo[]> {
    if (this.#cache !== undefined && Date.now() - this.#cache.at < CALENDAR_CACHE_TTL_MS) {
      return this.#cache.list;
    }
    const list = await this.discover(signal);
    this.#cache = { at: Date.now(), list };
    return list;
  }

  /** Forgets the cached calendar list (a calendar was added, renamed or removed). */
  forget(): void {
    this.#cache = undefined;
  }

  /**
   * Finds the calendars that hold events, by name.
   * @throws BackendError when the URL is not a CalDAV server; NotConfiguredError on 401/403.
   */
  async discover(signal?: AbortSignal): Promise<readonly CalendarInfo[]> {
    const base = this.backend.base.href;
    const self = (await this.#propfind(base, SELF_PROPS, '0', signal))[0]!;
    if (isEventCalendar(self)) return [this.#calendarOf(self, base)];
    let home = hrefOf(propsOf(self).calendarHomeSet);
    const principal = hrefOf(propsOf(self).currentUserPrincipal);
    if (home === undefined && principal !== undefined) {
      const url = this.#resolve(principal, base);
      const [p] = await this.#propfind(url, { 'c:calendar-home-set': {} }, '0', signal);
      home = p === undefined ? undefined : hrefOf(propsOf(p).calendarHomeSet);
    }
    const homeUrl = home === undefined ? base : this.#resolve(home, base);
    const list = (await this.#propfind(homeUrl, LIST_PROPS, '1', signal))
      .filter(isEventCalendar)
      .map((r) => this.#calendarOf(r, homeUrl))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (list.length === 0 && home === undefined && principal === undefined) {
      throw notCalDav(this.backend, 'it names no principal, calendar home or calendar');
    }
    return list;
  }

  /**
   * The objects of one calendar with an event in `[startMs, endMs)`: a calendar-query REPORT
   * with a time-range filter. Servers include a recurring event whole when any occurrence
   * may fall in the range; expansion and the exact filter happen client-side.
   */
  async objects(
    calendar: CalendarInfo,
    range: { startMs: number; endMs: number },
    signal?: AbortSignal,
  ): Promise<CalendarObject[]> {
    let responses: DAVResponse[];
    try {
      responses = await calendarQuery({
        url: calendar.url,
        props: { 'd:getetag': {}, 'c:calendar-data': {} },
        filters: eventsBetween(range.startMs, range.endMs),
        depth: '1',
        fetch: this.#fetch,
        fetchOptions: signal ? { signal } : {},
      });
    } catch (err) {
      if (err instanceof CaesarError) throw err;
      this.forget(); // the calendar may be gone: discover again next time
      throw new BackendError(
        `${BACKEND_NAME} at ${this.backend.origin} refused the calendar query on calendar "${calendar.name}"`,
        { cause: err, retryable: false },
      );
    }
    return responses.flatMap((r) => {
      const data = textOf(propsOf(r).calendarData);
      return data === undefined ? [] : [{ href: this.#resolve(r.href ?? '', calendar.url), data }];
    });
  }

  async close(): Promise<void> {
    await this.backend.close();
  }

  /** tsdav's fetch: the SDK's, with 401/403/5xx turned into coded errors at once. */
  readonly #fetch = async (
    input: string | URL | Request,
    init?: RequestInit,
  ): Promise<Response> => {
    const res = await this.backend.fetch(input, init);
    if (res.status < 401 || (res.status > 403 && res.status < 500)) return res;
    const path = new URL(typeof input === 'string' || input instanceof URL ? input : input.url)
      .pathname;
    const method = init?.method ?? 'GET';
    if (res.status === 401) throw credentialsRejected();
    if (res.status === 403) {
      throw new NotConfiguredError(
        `the ${BACKEND_NAME} refused the account access to ${path} (HTTP 403): check ${settingName(CONFIG_SECTION, 'caldav_url')} and the rights of ${envName('username')}`,
      );
    }
    throw new BackendError(
      `${BACKEND_NAME} at ${this.backend.origin} answered HTTP ${res.status} to ${method} ${path}`,
      { retryable: res.status !== 501 },
    );
  };

  async #propfind(
    url: string,
    props: Record<string, object>,
    depth: DAVDepth,
    signal: AbortSignal | undefined,
  ): Promise<DAVResponse[]> {
    const responses = await propfind({
      url,
      props,
      depth,
      fetch: this.#fetch,
      fetchOptions: signal ? { signal } : {},
    });
    const answer = responses[0];
    if (answer === undefined || responses.some((r) => r.props === undefined)) {
      const path = new URL(url).pathname;
      const status = answer?.status ?? 0;
      throw notCalDav(
        this.backend,
        `PROPFIND ${path} answered HTTP ${status}, not 207 Multi-Status`,
      );
    }
    return responses;
  }

  #calendarOf(r: DAVResponse, base: string): CalendarInfo {
    const url = this.#resolve(r.href ?? '', base);
    const shown = textOf(propsOf(r).displayname);
    const segment = new URL(url).pathname.split('/').filter(Boolean).at(-1) ?? url;
    return { name: shown ?? safeDecode(segment), url };
  }

  #resolve(href: string, base: string): string {
    return new URL(href, base).href;
  }
}

/** The answer to a 401: names the keys to check, never their values. */
export function credentialsRejected(): NotConfiguredError {
  return new NotConfiguredError(
    `the ${BACKEND_NAME} rejected the username or password: check ${envName('username')} / ${envName('password')} (tools.${CONFIG_SECTION}.username / tools.${CONFIG_SECTION}.password)`,
  );
}

function notCalDav(backend: HttpBackend, why: string): BackendError {
  return new BackendError(
    `${backend.base.origin}${backend.base.pathname} is not a CalDAV server (${why}): set ${settingName(CONFIG_SECTION, 'caldav_url')} to the CalDAV address, such as http://host:5232/ for Radicale or https://host/remote.php/dav/ for Nextcloud`,
    { retryable: false },
  );
}

/** The calendar-query filter: VEVENTs with an instance in the range (RFC 4791 9.9). */
function eventsBetween(startMs: number, endMs: number) {
  return {
    'comp-filter': {
      _attributes: { name: 'VCALENDAR' },
      'comp-filter': {
        _attributes: { name: 'VEVENT' },
        'time-range': { _attributes: { start: utcStamp(startMs), end: utcStamp(endMs) } },
      },
    },
  };
}

/** `20260310T090000Z`. */
function utcStamp(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace(/[-:]/g, '')}Z`;
}

function propsOf(r: DAVResponse): Record<string, unknown> {
  const props: Record<string, unknown> = r.props ?? {};
  return props;
}

function isEventCalendar(r: DAVResponse): boolean {
  const props = propsOf(r);
  const type = props.resourcetype;
  if (typeof type !== 'object' || type === null || !('calendar' in type)) return false;
  const set = props.supportedCalendarComponentSet;
  if (typeof set !== 'object' || set === null || !('comp' in set)) return true;
  const comps = [set.comp].flat<unknown[]>();
  return comps.some((c) => componentName(c) === 'VEVENT');
}

function componentName(c: unknown): string | undefined {
  const attrs =
    typeof c === 'object' && c !== null ? (c as { _attributes?: unknown })._attributes : undefined;
  const name =
    typeof attrs === 'object' && attrs !== null ? (attrs as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name.toUpperCase() : undefined;
}

/**
 * The text of a parsed XML element: tsdav gives a string, a `{_cdata}` / `{_text}` object,
 * or (its number and boolean guessing) a number or boolean for names such as "2024".
 */
function textOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() === '' ? undefined : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'object' && v !== null) {
    const o = v as { _cdata?: unknown; _text?: unknown };
    return textOf(o._cdata ?? o._text);
  }
  return undefined;
}

function hrefOf(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const href: unknown = (v as { href?: unknown }).href;
  return textOf(Array.isArray(href) ? (href as unknown[])[0] : href);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
