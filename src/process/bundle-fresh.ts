import { statSync } from 'node:fs';

/**
 * Whether a bundle the build made (the CLI's `cli.bundle.js`, ADR 0047; a thread's
 * `x-thread.bundle.js`, ADR 0104) may run: it exists and is not older than the last compile
 * (`compiled`, tsc's build record; no record counts as oldest). A `tsc` run after the bundle
 * was made means its code may be stale, so the modules run until the build makes a new one.
 * node:fs only: the `caesar` bin imports it before anything else.
 */
export function isBundleFresh(bundle: URL, compiled: URL): boolean {
  const built = statSync(bundle, { throwIfNoEntry: false });
  if (built === undefined) return false;
  return built.mtimeMs >= (statSync(compiled, { throwIfNoEntry: false })?.mtimeMs ?? 0);
}
