import {
  BackendError,
  HttpBackend,
  jsonRefusal,
  NotConfiguredError,
  readJsonText,
  readJsonValue,
  type HttpCall,
  type HttpReply,
} from '../../legion/index.js';
import { haSetting, type HaTarget } from './config.js';

/** What Home Assistant is called in messages. */
export const HA_NAME = 'Home Assistant';

/**
 * Largest answer read from Home Assistant: `GET /api/states` of a large home (a few thousand
 * entities with their attributes) is a few MiB.
 */
const HA_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** Longest piece of a Home Assistant answer quoted in an error message. */
const MAX_QUOTE = 300;

/**
 * Home Assistant's REST API (developers.home-assistant.io/docs/api/rest) through the SDK's
 * bounded HTTP client: bearer auth, one origin, per-request timeout, bounded answers. The
 * token lives only in the backend's headers, which no message, log or result ever carries.
 */
export class HaClient {
  readonly http: HttpBackend;
  readonly target: HaTarget;

  constructor(target: HaTarget) {
    this.target = target;
    this.http = new HttpBackend({
      name: HA_NAME,
      baseUrl: target.url,
      timeoutMs: target.timeoutMs,
      verifyTls: target.verifyTls,
      maxResponseBytes: HA_MAX_RESPONSE_BYTES,
      headers: { authorization: `Bearer ${target.token}`, accept: 'application/json' },
    });
  }

  get origin(): string {
    return this.http.origin;
  }

  /** One request; any status is a reply (the caller maps the ones it expects). */
  request(call: HttpCall): Promise<HttpReply> {
    return this.http.request(call);
  }

  /** GET a JSON document; any status but 2xx is an error (see {@link statusError}). */
  async getJson(path: string, signal?: AbortSignal, timeoutMs?: number): Promise<unknown> {
    const reply = await this.http.request({ path, ...opt({ signal, timeoutMs }) });
    if (reply.status < 200 || reply.status >= 300) throw statusError(reply, `GET /${path}`);
    return parseJson(reply, `GET /${path}`);
  }

  async close(): Promise<void> {
    await this.http.close();
  }
}

function opt(o: { signal: AbortSignal | undefined; timeoutMs: number | undefined }) {
  return {
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
  };
}

/** The body as JSON. @throws BackendError when Home Assistant did not answer JSON. */
export function parseJson(reply: HttpReply, what: string): unknown {
  const read = readJsonText(reply.text);
  if (read.ok) return read.value;
  if (read.why !== 'syntax') {
    throw new BackendError(
      `${HA_NAME} answered ${what} with a body that is ${jsonRefusal(read)} (HTTP ${reply.status})`,
      { retryable: false },
    );
  }
  throw new BackendError(
    `${HA_NAME} answered ${what} with something that is not JSON (HTTP ${reply.status}); is ${haSetting('url')} the address of Home Assistant?`,
    { retryable: false },
  );
}

/** Home Assistant's own words from an error answer: `{"message": ...}` or its plain text. */
export function haMessage(reply: HttpReply): string {
  let text = reply.text;
  // JSON `{"message": ...}`, or plain text, such as aiohttp's "400: Bad Request"
  const body = readJsonValue(text) as { message?: unknown } | null | undefined;
  if (typeof body?.message === 'string') text = body.message;
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_QUOTE ? `${line.slice(0, MAX_QUOTE)}…` : line || `HTTP ${reply.status}`;
}

/**
 * The error for an answer outside 2xx that the caller has no special meaning for:
 * 401/403 `not_configured` (the token), 404 `backend_error` (wrong URL), 5xx retryable
 * `backend_error`, anything else `backend_error`.
 */
export function statusError(reply: HttpReply, what: string): Error {
  const status = reply.status;
  if (status === 401 || status === 403) return tokenRejected(status, what);
  if (status === 404) {
    return new BackendError(
      `${HA_NAME} answered ${what} with 404 Not Found: is ${haSetting('url')} the base URL of Home Assistant (without /api)?`,
      { retryable: false },
    );
  }
  return new BackendError(`${HA_NAME} answered ${what} with HTTP ${status}: ${haMessage(reply)}`, {
    retryable: status >= 500 || status === 429,
  });
}

/** A 401/403: the token is wrong, revoked, or its user may not do this. */
function tokenRejected(status: number, what: string): NotConfiguredError {
  return new NotConfiguredError(
    `${HA_NAME} rejected the access token (HTTP ${status} for ${what}): set a valid long-lived access token in ${haSetting('token')}; an admin-only service also needs an admin user's token`,
  );
}
