import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where the evaluation thread's script is.
 *
 * A worker thread loads plain JavaScript, so the thread always runs the compiled
 * `eval-thread.js`:
 * - from dist/ (production, `node dist/src/cli/main.js ...`), this module is
 *   `dist/workers/calculator/thread-url.js` and the script sits next to it;
 * - from TypeScript sources (vitest runs `.ts` directly), this module is
 *   `workers/calculator/thread-url.ts` and the script is its compiled twin under
 *   `dist/workers/calculator/`. `npm test` builds dist/ first (pretest: scripts/setup.mjs);
 *   by hand, run `npx tsc -p tsconfig.build.json`. The twin is only as fresh as that build.
 */
export function evalThreadUrl(moduleUrl: string = import.meta.url): URL {
  if (moduleUrl.endsWith('.ts')) {
    return new URL('../../dist/workers/calculator/eval-thread.js', moduleUrl);
  }
  return new URL('./eval-thread.js', moduleUrl);
}

/** Throws a message naming the fix when the thread script has not been built. */
export function assertThreadScript(url: URL): void {
  if (url.protocol === 'file:' && !existsSync(fileURLToPath(url))) {
    throw new Error(
      `calculator thread script ${fileURLToPath(url)} is missing; build first: npx tsc -p tsconfig.build.json`,
    );
  }
}
