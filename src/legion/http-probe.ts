import type { PreflightCheck } from '../protocol/index.js';
import { HttpFailure, type HttpBackend, type HttpCall, type HttpReply } from './http.js';

/** A preflight's request gets at most this long, whatever the backend's call timeout. */
export const PREFLIGHT_TIMEOUT_MS = 3000;

/** What a probe found: the checks in the order they ran, and the reply when there was one. */
export interface ProbeResult {
  readonly ok: boolean;
  readonly checks: PreflightCheck[];
  readonly reply?: HttpReply;
}

/**
 * Preflight of an HTTP backend: one real, authenticated request with a short timeout, told
 * apart step by step, so `caesar up` and `GET /v1/tools` say which one failed:
 * `dns`, `connect`, `tls` (https only), then `auth` (401/403) and `endpoint` (404, or any
 * other status outside 2xx). A tool adds its own checks on `reply` (a SearXNG whose JSON
 * output is off, say).
 */
export async function probeHttp(backend: HttpBackend, call: HttpCall): Promise<ProbeResult> {
  const where = `${backend.name} at ${backend.origin}`;
  const https = backend.base.protocol === 'https:';
  let reply: HttpReply;
  try {
    reply = await backend.request({ timeoutMs: PREFLIGHT_TIMEOUT_MS, ...call });
  } catch (err) {
    return { ok: false, checks: failedAt(err, backend) };
  }
  const checks: PreflightCheck[] = [
    { name: 'connect', ok: true, detail: `${where} answered HTTP ${reply.status}` },
  ];
  if (https) checks.push({ name: 'tls', ok: true });
  const path = `${call.method ?? 'GET'} ${new URL(reply.where).pathname}`;
  if (reply.status === 401 || reply.status === 403) {
    checks.push({
      name: 'auth',
      ok: false,
      detail: `${backend.name} rejected the credentials (${path}: HTTP ${reply.status})`,
    });
    return { ok: false, checks, reply };
  }
  checks.push({ name: 'auth', ok: true });
  if (reply.status < 200 || reply.status >= 300) {
    const why = reply.status === 404 ? 'not found: is the URL right?' : `HTTP ${reply.status}`;
    checks.push({ name: 'endpoint', ok: false, detail: `${path}: ${why}` });
    return { ok: false, checks, reply };
  }
  checks.push({ name: 'endpoint', ok: true });
  return { ok: true, checks, reply };
}

/** The checks up to and including the step that failed. */
function failedAt(err: unknown, backend: HttpBackend): PreflightCheck[] {
  const detail = err instanceof Error ? err.message : String(err);
  const kind = err instanceof HttpFailure ? err.kind : 'protocol';
  const https = backend.base.protocol === 'https:';
  switch (kind) {
    case 'dns':
      return [{ name: 'dns', ok: false, detail }];
    case 'connect':
    case 'timeout':
      return [
        { name: 'dns', ok: true },
        { name: 'connect', ok: false, detail },
      ];
    case 'tls':
      return [
        { name: 'dns', ok: true },
        { name: 'connect', ok: true },
        { name: 'tls', ok: false, detail },
      ];
    default:
      return [
        { name: 'dns', ok: true },
        { name: 'connect', ok: true },
        ...(https ? [{ name: 'tls', ok: true }] : []),
        { name: 'endpoint', ok: false, detail },
      ];
  }
}

/**
 * The `configured` check of a tool with no backend set. `detail` says what to set, starting
 * with "set": `set CAESAR_HA__URL (ha.url) and CAESAR_HA__TOKEN (ha.token)` (see
 * `settingName`), so `caesar up` can print `call_service: not configured: set …`.
 */
export function notConfigured(detail: string): { ok: false; checks: PreflightCheck[] } {
  return { ok: false, checks: [{ name: 'configured', ok: false, detail }] };
}
