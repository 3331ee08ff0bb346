import { fileURLToPath } from 'node:url';

/**
 * Files shipped with the package, found from this module's place in it: `src/config/` in a
 * checkout run through vitest, `dist/src/config/` once built. Both sit two or three levels
 * below the package root.
 */
function packageFile(relative: string): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const up = /[\\/]dist[\\/]src[\\/]config[\\/]?$/.test(here) ? '../../../' : '../../';
  return fileURLToPath(new URL(up + relative, import.meta.url));
}

/** The intent rules `brain.intents_file` defaults to. */
export const SHIPPED_INTENTS_FILE = packageFile('config/intents.yaml');
