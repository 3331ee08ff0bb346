import { formatPolicyStatus } from '../../../policy/index.js';
import {
  consoleIo,
  EXIT_FAILED,
  EXIT_OK,
  withClient,
  type ApiCliIo,
} from '../../brain-client/command.js';
import type { ApiFlags } from '../../program/flags.js';
import { terminalLine } from '../../../text/terminal-text.js';

/** `caesar policy status`'s flags. */
export interface PolicyStatusFlags extends ApiFlags {
  json?: boolean;
}

/**
 * `caesar policy status`: asks the running brain (`GET /v1/policy`, found as `caesar invoke`
 * finds it) which policy it enforces and whether the file on disk is that policy. Exit 0 when
 * it is (`ok`); 1 when the file is `broken` or `stale`, or the brain cannot be asked; 2 for a
 * usage error. `--json` prints the answer as the API gives it.
 */
export async function runPolicyStatus(
  flags: PolicyStatusFlags,
  io: ApiCliIo = consoleIo,
): Promise<number> {
  return withClient('policy status', flags, io, async (client) => {
    const status = await client.policyStatus();
    if (flags.json) io.out(JSON.stringify(status, null, 2));
    // the brain's words (a reload error quotes the file): a line each, escaped
    else formatPolicyStatus(status).forEach((line) => io.out(terminalLine(line)));
    return status.status === 'ok' ? EXIT_OK : EXIT_FAILED;
  });
}
