import {
  BackendError,
  NotConfiguredError,
  type HttpBackend,
  type HttpReply,
} from '../../../src/legion/index.js';
import type { Secret } from '../secret.js';
import {
  httpSearchBackend,
  quote,
  statusError,
  type BackendAnswer,
  type ProbeCheck,
  type ProbeOutcome,
  type SearchBackend,
  type SearchBackendSpec,
  type SearchRequest,
} from './backend.js';

/**
 * What a paid search API that takes an API key (Brave Search, Tavily) needs to say how it
 * refused a request. Both read a refusal the same way, in a search and in a probe: the key
 * was rejected (`not_configured`, naming the setting), or a rate limit or quota is used up
 * (retryable), or any other status ({@link statusError}).
 */
export interface KeyedApi {
  readonly name: SearchBackendSpec['name'];
  readonly label: string;
  readonly probeSpendsQuota: boolean;
  /** The setting that holds the key, and what it must hold: `a valid Tavily API key`. */
  readonly keySetting: string;
  readonly validKey: string;
  readonly urlSetting: string;
  /** The header that carries the key. */
  headers(key: Secret): Readonly<Record<string, string>>;
  /** What the upstream said in an error body: its code (Brave's) and detail text. */
  said(reply: HttpReply): { readonly code?: string | undefined; readonly detail?: unknown };
  /** True when the reply rejects the key. */
  keyRejected(reply: HttpReply, code: string | undefined): boolean;
  /** Why a rate limit or quota answer failed; undefined when the reply is not one. */
  quota(reply: HttpReply): string | undefined;
}

/** How the tool starts a backend that takes an API key. */
export interface KeyedBackendOptions {
  readonly timeoutMs: number;
  /** Every configured secret, kept out of quoted upstream text. */
  readonly secrets: readonly Secret[];
}

/** A keyed backend's search: it gets the secrets to keep out of quoted upstream errors. */
type KeyedSearch = (
  http: HttpBackend,
  secrets: readonly Secret[],
  request: SearchRequest,
  signal: AbortSignal,
) => Promise<BackendAnswer>;

/** Starts a backend that takes an API key, each on its own HttpBackend. */
type CreateKeyedBackend = (url: string, key: Secret, options: KeyedBackendOptions) => SearchBackend;

/** The `create` of a backend that takes an API key: `api` says how it refuses, `run` how it works. */
export function keyedBackend(
  api: KeyedApi,
  run: { search: KeyedSearch; probe: SearchBackendSpec['probe'] },
): CreateKeyedBackend {
  return (url, key, options) =>
    httpSearchBackend({
      name: api.name,
      label: api.label,
      probeSpendsQuota: api.probeSpendsQuota,
      url,
      timeoutMs: options.timeoutMs,
      headers: api.headers(key),
      search: (http, request, signal) => run.search(http, options.secrets, request, signal),
      probe: run.probe,
    });
}

/** Why a search got no 200: the key, the quota, or the status. */
export function keyedFailure(
  api: KeyedApi,
  http: HttpBackend,
  reply: HttpReply,
  secrets: readonly Secret[],
): Error {
  const { code, detail } = api.said(reply);
  const said = code ? ` ${code}` : '';
  if (api.keyRejected(reply, code)) {
    return new NotConfiguredError(
      `${api.label} rejected the API key (HTTP ${reply.status}${said}): set ${api.keySetting} to ${api.validKey}`,
    );
  }
  const quota = api.quota(reply);
  if (quota !== undefined) {
    return new BackendError(`${api.label} answered HTTP ${reply.status}${said}: ${quota}`, {
      retryable: true,
    });
  }
  return statusError(http, reply, api.urlSetting, quote(detail, secrets));
}

/**
 * A probe that reached the backend and was refused: the network checks that passed, then
 * `auth` failed, or `auth` passed and `quota` failed. Undefined for any other answer.
 */
export function keyedProbeRefusal(
  api: KeyedApi,
  probe: ProbeOutcome & { readonly reply?: HttpReply | undefined },
): ProbeOutcome | undefined {
  const reply = probe.reply;
  if (reply === undefined) return undefined;
  const { code } = api.said(reply);
  const said = code ? ` ${code}` : '';
  const reached = probe.checks.filter((c) => ['dns', 'connect', 'tls'].includes(c.name));
  if (api.keyRejected(reply, code)) {
    const detail = `${api.label} rejected the API key (HTTP ${reply.status}${said}): set ${api.keySetting}`;
    return { ok: false, checks: [...reached, { name: 'auth', ok: false, detail }] };
  }
  const quota = api.quota(reply);
  if (quota === undefined) return undefined;
  const detail = `${api.label} answered HTTP ${reply.status}${said}: ${quota}`;
  const checks: ProbeCheck[] = [
    ...reached,
    { name: 'auth', ok: true },
    { name: 'quota', ok: false, detail },
  ];
  return { ok: false, checks };
}
