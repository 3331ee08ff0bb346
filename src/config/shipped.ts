import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Files shipped with the package, found from this module's place in it: `src/config/` in a
 * checkout run through vitest; once built, `dist/src/config/`, or `dist/src/cli/` when this
 * module is inlined in the CLI client's bundle (ADR 0047). The package root is the folder
 * above `dist/`, else two levels up. Never the working directory (ADR 0056).
 */
function packageFile(relative: string): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const built = /^(.*)[\\/]dist[\\/]src[\\/][^\\/]+[\\/]?$/.exec(here);
  if (built) return join(built[1]!, relative);
  return fileURLToPath(new URL(`../../${relative}`, import.meta.url));
}

/** The shipped intent rules, copied to `<data_dir>/intents.yaml` on first start. */
export const SHIPPED_INTENTS_FILE = packageFile('config/intents.yaml');

/** The shipped policy (read-only tools only), copied to `<data_dir>/policy.yaml` on first start. */
export const SHIPPED_POLICY_FILE = packageFile('policy/policy.yaml');

/** `policy.file`'s default, in the data dir: `<data_dir>/policy.yaml`. */
export const DEFAULT_POLICY_FILE_NAME = 'policy.yaml';

/** `brain.intents_file`'s default, in the data dir: `<data_dir>/intents.yaml`. */
export const DEFAULT_INTENTS_FILE_NAME = 'intents.yaml';

/** The dashboard's static files (`GET /`, docs/dashboard.md). */
export const SHIPPED_DASHBOARD_DIR = packageFile('web/dashboard');
