import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Files shipped with the package, found from this module's place in it: `src/config/` in a
 * checkout run through vitest; once built, `dist/src/config/`, or `dist/src/cli/` when this
 * module is inlined in the CLI client's bundle (ADR 0047). The package root is the folder
 * above `dist/`, else two levels up.
 */
function packageFile(relative: string): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const built = /^(.*)[\\/]dist[\\/]src[\\/][^\\/]+[\\/]?$/.exec(here);
  if (built) return join(built[1]!, relative);
  return fileURLToPath(new URL(`../../${relative}`, import.meta.url));
}

/** The intent rules `brain.intents_file` defaults to. */
export const SHIPPED_INTENTS_FILE = packageFile('config/intents.yaml');

/** The dashboard's static files (`GET /`, docs/dashboard.md). */
export const SHIPPED_DASHBOARD_DIR = packageFile('web/dashboard');
