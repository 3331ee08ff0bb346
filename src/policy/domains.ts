import { z } from 'zod';

/**
 * `example.org` (that host and every host below it) or `*.example.org` (only hosts below it,
 * not `example.org` itself). No scheme, port or path.
 */
export const DomainPatternSchema = z
  .string()
  .transform((s) => s.trim().toLowerCase().replace(/\.$/, ''))
  .pipe(
    z.string().regex(/^(\*\.)?([a-z0-9-]+\.)*[a-z0-9-]+$/, {
      error: 'expected a host like en.wikipedia.org or *.wikipedia.org (no scheme, no path)',
    }),
  );

/**
 * Compiles a domain allowlist into a predicate on result URLs: a URL passes when its host is
 * an allowed domain or a subdomain of one (`*.x` entries: a subdomain only). Only http(s) URLs
 * can pass; anything that does not parse as a URL fails.
 */
export function compileDomainAllowlist(patterns: readonly string[]): (url: string) => boolean {
  const domains = new Set<string>();
  const suffixes: string[] = [];
  for (const raw of patterns) {
    const p = raw.trim().toLowerCase().replace(/\.$/, '');
    if (p.startsWith('*.')) suffixes.push(p.slice(1));
    else {
      domains.add(p);
      suffixes.push(`.${p}`);
    }
  }
  return (url) => {
    const host = hostOf(url);
    if (host === null) return false;
    return domains.has(host) || suffixes.some((s) => host.endsWith(s));
  };
}

function hostOf(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  return parsed.hostname.toLowerCase().replace(/\.$/, '');
}
