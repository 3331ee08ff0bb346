import {
  BackendError,
  CaesarError,
  HttpFailure,
  InvalidInputError,
  readJsonText,
} from '../../src/legion/index.js';
import {
  haMessage,
  HA_NAME,
  parseStateList,
  statusError,
  suggestService,
  type HaConnection,
  type HaState,
  type ResponseMode,
  type ServiceCatalogue,
  type ServiceInfo,
} from '../../src/clients/home-assistant/index.js';
import type { PreparedCall } from './targets.js';

/** Largest service response passed on, as JSON (a reply envelope is at most 1 MiB). */
const MAX_RESPONSE_BYTES = 256 * 1024;
/** States read from a call's changed-states list at most. */
const MAX_CHANGED = 1000;

/** What Home Assistant answered to the call. */
export interface CallOutcome {
  /** The states written in the call's context (Home Assistant's changed-states list). */
  readonly changed: readonly HaState[];
  readonly response?: unknown;
}

/** Home Assistant's two refusals about `?return_response` (checked before the service runs). */
type ResponseRefusal = 'required' | 'unsupported';

function responseRefusal(message: string): ResponseRefusal | undefined {
  if (/does not support responses/i.test(message)) return 'unsupported';
  if (/requires responses/i.test(message)) return 'required';
  return undefined;
}

/**
 * Whether to ask for the response: always for a service that always returns one, when the
 * caller asks for one that may, never for one that returns none.
 * @throws InvalidInputError when the caller asks a service that returns none.
 */
export function askForResponse(info: ServiceInfo, requested: boolean | undefined): boolean {
  const mode: ResponseMode = info.response;
  if (mode === 'only') return true;
  if (mode === 'optional') return requested === true;
  if (requested === true) {
    throw new InvalidInputError(
      `${info.domain}.${info.service} returns no response; call it without return_response`,
      { details: [{ path: 'return_response', message: 'the service returns no response' }] },
    );
  }
  return false;
}

/** The service from the catalogue. @throws InvalidInputError naming the closest one. */
export async function findService(
  conn: HaConnection,
  call: PreparedCall,
  signal: AbortSignal,
): Promise<ServiceInfo> {
  const { info, catalogue } = await conn.services.find(call.domain, call.service, signal);
  if (info === undefined) throw unknownService(call, catalogue);
  return info;
}

function unknownService(call: PreparedCall, catalogue: ServiceCatalogue): InvalidInputError {
  const s = suggestService(call.domain, call.service, catalogue);
  const hint = s.suggestion ? `did you mean ${s.suggestion}?` : 'no such service';
  return new InvalidInputError(s.message, { details: [{ path: 'service', message: hint }] });
}

/**
 * `POST /api/services/<domain>/<service>` with the data and targets as the JSON body, and
 * `?return_response` when `ask`. When Home Assistant refuses the `return_response` choice
 * (our catalogue was stale), the catalogue is reloaded and the call sent once more the
 * other way, unless the caller asked for a response the service does not give: Home
 * Assistant refuses these before running the service, so the retry cannot run it twice.
 */
export async function invokeService(
  conn: HaConnection,
  call: PreparedCall,
  ask: boolean,
  requested: boolean | undefined,
  signal: AbortSignal,
): Promise<CallOutcome> {
  const what = `POST /api/services/${call.domain}/${call.service}`;
  for (let attempt = 0; ; attempt++) {
    const reply = await sendOnce(conn, call, ask, signal);
    if (reply.status === 200) return readOutcome(reply.text, ask);
    if (reply.status !== 400 && reply.status !== 404)
      throw mayHaveRun(statusError(reply, what), call);
    const message = haMessage(reply);
    const refusal = reply.status === 400 ? responseRefusal(message) : undefined;
    if (refusal === undefined) throw await refused(conn, call, reply.status, message, signal);
    await conn.services.reload(call.domain, call.service, signal);
    const retry = refusal === 'required' ? !ask : ask && requested !== true;
    if (attempt === 0 && retry) {
      ask = !ask;
      continue;
    }
    throw new InvalidInputError(
      refusal === 'unsupported'
        ? `${call.key} returns no response; call it without return_response (${HA_NAME}: ${message})`
        : `${HA_NAME} refused ${call.key}: ${message}`,
      { details: [{ path: 'return_response', message }] },
    );
  }
}

/**
 * Sends the call once. A failure after the request may have reached Home Assistant (no
 * answer in time, a dropped connection) is not retryable: the service may have run, and a
 * blind retry could toggle a device twice. Only a request that never left (DNS, refused
 * connection, TLS) keeps its retryable flag.
 */
async function sendOnce(conn: HaConnection, call: PreparedCall, ask: boolean, signal: AbortSignal) {
  try {
    return await conn.client.request({
      method: 'POST',
      path: `api/services/${call.domain}/${call.service}`,
      ...(ask ? { query: { return_response: '' } } : {}),
      json: call.body,
      signal,
    });
  } catch (err) {
    const neverSent = err instanceof HttpFailure && NEVER_SENT.has(err.kind);
    throw neverSent || !(err instanceof CaesarError) ? err : mayHaveRun(err, call);
  }
}

/** Failure kinds of a request that never reached the server. */
const NEVER_SENT = new Set(['dns', 'connect', 'tls']);

/** The same failure, not retryable, saying the service may have run. */
function mayHaveRun(err: Error, call: PreparedCall): Error {
  if (!(err instanceof CaesarError) || err.code === 'not_configured' || !err.retryable) return err;
  return new CaesarError(
    err.code,
    `${err.message}; ${call.key} may have run: check the device before trying again`,
    { retryable: false, cause: err },
  );
}

/**
 * A 400 or 404 that is not about `return_response`: an unknown service (named with the
 * closest existing one), else data or targets the service refused.
 */
async function refused(
  conn: HaConnection,
  call: PreparedCall,
  status: number,
  message: string,
  signal: AbortSignal,
): Promise<Error> {
  const { info, catalogue } = await conn.services.reload(call.domain, call.service, signal);
  if (info === undefined) return unknownService(call, catalogue);
  if (status === 404) {
    return new BackendError(
      `${HA_NAME} answered 404 for ${call.key}, which it lists; is the URL right?`,
      {
        retryable: false,
      },
    );
  }
  const fields = info.fields.length > 0 ? `; its fields are: ${info.fields.join(', ')}` : '';
  return new InvalidInputError(
    `${HA_NAME} refused ${call.key} (HTTP 400: ${message}): check the data and targets${fields}`,
    { details: [{ path: 'data', message }] },
  );
}

/**
 * The changed-states list (and the response when asked). The service has run by now, so an
 * answer that cannot be read is not an error: the read-back still says what happened.
 */
function readOutcome(text: string, asked: boolean): CallOutcome {
  const read = readJsonText(text);
  if (!read.ok) return { changed: [] };
  const body = read.value;
  const list = asked ? (body as { changed_states?: unknown } | null)?.changed_states : body;
  const changed = Array.isArray(list) ? parseStateList(list.slice(0, MAX_CHANGED), 'the call') : [];
  if (!asked) return { changed };
  const response = (body as { service_response?: unknown } | null)?.service_response ?? null;
  const bytes = Buffer.byteLength(JSON.stringify(response));
  if (bytes > MAX_RESPONSE_BYTES) {
    return {
      changed,
      response: {
        truncated: true,
        bytes,
        note: `the response is larger than ${MAX_RESPONSE_BYTES} bytes`,
      },
    };
  }
  return { changed, response };
}
