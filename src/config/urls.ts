const SCHEME_RE = /^([a-z][a-z0-9+.-]*):\/\//i;
const USERINFO_RE = /^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i;

/** Schemes the Node NATS transport dials. */
const NATS_SCHEMES = new Set(['nats', 'tls']);

/** `nats://user:pass@host` -> `nats://[redacted]@host`; other strings unchanged. */
export function redactUserinfo(url: string): string {
  return url.replace(USERINFO_RE, '$1[redacted]@');
}

/** Why `url` is not a NATS server address, or undefined when it is one. */
export function serverUrlProblem(url: string): string | undefined {
  const scheme = SCHEME_RE.exec(url)?.[1]?.toLowerCase();
  const shown = redactUserinfo(url);
  if (scheme !== undefined && !NATS_SCHEMES.has(scheme)) {
    return `'${shown}' has scheme '${scheme}://'; expected nats://, tls:// or a bare host:port`;
  }
  try {
    const parsed = new URL(scheme === undefined ? `nats://${url}` : url);
    if (parsed.hostname !== '') return undefined;
  } catch {
    // fall through to the message below
  }
  return `'${shown}' is not a server address (nats://host:port, tls://host:port or host:port)`;
}
