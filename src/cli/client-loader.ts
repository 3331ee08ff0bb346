import { statSync } from 'node:fs';
import type * as Client from './client.js';

/**
 * Loads the runners of `chat`, `invoke`, `confirm` and `reject` (`client.ts`). The build
 * (`npm run build`, and the setup behind `npm start` and `npm test`) bundles `client.js` with
 * all it imports (the config loader, the API contract, zod, js-yaml) into one file beside it,
 * `client.bundle.js` (rolldown, scripts/bundle-client.mjs): one file loads in well under half
 * the time of the ~170 modules it holds (ADR 0047). The bundle is used only when it is at
 * least as new as the last compile (`dist/.tsbuildinfo`), so a `tsc` run after it never runs
 * stale code; otherwise, and from the sources (vitest), the modules load one by one.
 */
export async function loadClient(): Promise<typeof Client> {
  const bundle = new URL('./client.bundle.js', import.meta.url);
  if (isFresh(bundle, new URL('../../.tsbuildinfo', import.meta.url))) {
    return (await import(bundle.href)) as typeof Client;
  }
  return import('./client.js');
}

/** Whether `bundle` exists and is not older than the compile record `compiled` (if any). */
function isFresh(bundle: URL, compiled: URL): boolean {
  const built = statSync(bundle, { throwIfNoEntry: false });
  if (built === undefined) return false;
  const compiledAt = statSync(compiled, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return built.mtimeMs >= compiledAt;
}
