import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isBundleFresh } from './bundle-fresh.js';

/**
 * Where a script that runs outside the calling module's loader is: a worker thread's entry or
 * a child process's main. Such a script is always plain JavaScript, so it is always the
 * compiled one:
 * - from `dist/` (production, `node dist/src/cli/main.js ...`), `moduleUrl` is a `.js` file
 *   and the script is `relativeJs` resolved against it;
 * - from TypeScript sources (vitest runs `.ts` directly), `moduleUrl` is
 *   `<project>/<path>/x.ts` and the script is its compiled twin,
 *   `<project>/dist/<path>/<relativeJs>`, where `<project>` is the nearest directory above
 *   with a `package.json`. `npm test` builds `dist/` first (scripts/setup.mjs); by hand, run
 *   `npm run build`. The twin is only as fresh as that build.
 *
 * Either way, when the build bundled the script (`x-thread.js` -> `x-thread.bundle.js`
 * beside it, scripts/bundle.mjs, ADR 0104) and that bundle is not older than the last
 * compile (`<project>/dist/.tsbuildinfo`), the bundle is the one returned: one file to load
 * in place of every module the script reaches (mathjs alone is 1,262).
 *
 * @param moduleUrl the caller's `import.meta.url`
 * @param relativeJs the script's path relative to the caller, with its `.js` suffix
 * @throws Error naming the missing file and `npm run build` when the script does not exist
 */
export function compiledScriptUrl(moduleUrl: string, relativeJs: string): URL {
  const url = moduleUrl.endsWith('.ts')
    ? new URL(relativeJs, compiledTwinDir(moduleUrl))
    : new URL(relativeJs, moduleUrl);
  assertScriptExists(url);
  return freshBundleOf(url) ?? url;
}

/** Throws an error naming the file and the build command when a `file:` script is missing. */
export function assertScriptExists(url: URL): void {
  if (url.protocol === 'file:' && !existsSync(fileURLToPath(url))) {
    throw new Error(`${fileURLToPath(url)} is missing: run \`npm run build\` (npm test does it)`);
  }
}

/** `x.js`'s bundle `x.bundle.js` beside it, if the build made one after the last compile. */
function freshBundleOf(script: URL): URL | undefined {
  if (script.protocol !== 'file:' || !script.pathname.endsWith('.js')) return undefined;
  const bundle = new URL(script.href.replace(/\.js$/, '.bundle.js'));
  const project = findProjectRoot(new URL('.', script));
  if (project === undefined) return undefined;
  return isBundleFresh(bundle, new URL('dist/.tsbuildinfo', project)) ? bundle : undefined;
}

/** `<project>/<path>/x.ts` -> `<project>/dist/<path>/`. */
function compiledTwinDir(moduleUrl: string): URL {
  const dir = new URL('.', moduleUrl);
  const project = findProjectRoot(dir);
  if (project === undefined) {
    throw new Error(
      `no package.json above ${fileURLToPath(dir)}: cannot find its compiled twin in dist/`,
    );
  }
  return new URL(`dist/${dir.href.slice(project.href.length)}`, project);
}

/** The nearest directory at or above `dir` with a package.json. */
function findProjectRoot(dir: URL): URL | undefined {
  for (let at = dir; ; at = new URL('..', at)) {
    if (existsSync(new URL('package.json', at))) return at;
    if (new URL('..', at).href === at.href) return undefined;
  }
}
