import { statSync } from 'node:fs';

/**
 * Whether the build's bundle of the CLI (`cli.bundle.js`, ADR 0047) may run: it exists and
 * is not older than the last compile (`compiled`, tsc's build record; no record counts as
 * oldest). A `tsc` run after the bundle was made means its code may be stale, so the CLI runs
 * from the modules until the build makes a new one.
 */
export function isBundleFresh(bundle: URL, compiled: URL): boolean {
  const built = statSync(bundle, { throwIfNoEntry: false });
  if (built === undefined) return false;
  return built.mtimeMs >= (statSync(compiled, { throwIfNoEntry: false })?.mtimeMs ?? 0);
}
