import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { HttpApiError } from './errors.js';

/**
 * The dashboard (docs/dashboard.md, ADR 0057): static files served at `/` and
 * `/dashboard/<file>` without a token. They hold no data: the page asks for a token and reads
 * everything from the token-guarded API with `Authorization: Bearer` (no cookies, so no CSRF
 * surface). A strict Content-Security-Policy allows only the page's own script, style and
 * images, and calls to the same origin.
 */

/** The dashboard's routes: public (no token), like `/healthz`. */
export const DASHBOARD_ROUTES: readonly string[] = ['/', '/dashboard/:file'];

export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The files, by the name the URL uses, and their media types. */
const FILES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'icon.svg': 'image/svg+xml',
};

interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

/** Reads the files once; a missing one is answered 404 naming where it was looked for. */
function loadAssets(dir: string): Map<string, Asset | Error> {
  const assets = new Map<string, Asset | Error>();
  for (const [name, type] of Object.entries(FILES)) {
    try {
      assets.set(name, { type, body: readFileSync(join(dir, name)) });
    } catch (err) {
      assets.set(name, err as Error);
    }
  }
  return assets;
}

function send(reply: FastifyReply, dir: string, asset: Asset | Error | undefined, name: string) {
  if (asset === undefined)
    throw new HttpApiError('not_found', { what: `dashboard file '${name}'` });
  if (asset instanceof Error) {
    throw new HttpApiError('not_found', {
      what:
        `dashboard file '${name}': ${join(dir, name)} could not be read (${asset.message}); ` +
        'reinstall the package or rebuild it from a checkout (npm run build)',
    });
  }
  void reply.type(asset.type).headers({
    'content-security-policy': DASHBOARD_CSP,
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
  });
  return asset.body;
}

/** Registers `/` and `/dashboard/:file`, serving the files of `dir`. */
export function registerDashboard(app: FastifyInstance, dir: string): void {
  const assets = loadAssets(dir);
  app.get('/', (_req, reply) => send(reply, dir, assets.get('index.html'), 'index.html'));
  app.get<{ Params: { file: string } }>('/dashboard/:file', (req, reply) => {
    const name = req.params.file;
    // only the listed names: `index.html` is served at `/`
    const asset = name === 'index.html' ? undefined : assets.get(name);
    return send(reply, dir, asset, name.slice(0, 64));
  });
}
