import type { ConfirmResponse } from '../../brain/api/index.js';
import { ApiError } from '../api-client.js';
import {
  consoleIo,
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
  printReport,
  withClient,
  type ApiCliIo,
} from '../api-command.js';
import type { ApiFlags } from '../flags.js';

/** `caesar confirm <id>` / `caesar reject <id>`: the human answer to a call waiting for approval. */

/** `caesar confirm <id>` / `caesar reject <id>`: exit 0 when the call ran / was rejected. */
export async function runConfirm(
  id: string,
  approve: boolean,
  flags: ApiFlags & { json?: boolean },
  io: ApiCliIo = consoleIo,
): Promise<number> {
  const verb = approve ? 'confirm' : 'reject';
  if (id.length === 0 || id.length > 256) {
    io.err(`caesar ${verb}: expected a confirmation id`);
    return EXIT_USAGE;
  }
  return withClient(verb, flags, io, async (client) => {
    let report: ConfirmResponse;
    try {
      report = await client.confirm(id, approve);
    } catch (err) {
      if (!(err instanceof ApiError) || err.httpStatus !== 404) throw err;
      io.err(
        `caesar ${verb}: no pending confirmation ${id} (expired, already used, or voided by a policy reload)`,
      );
      return EXIT_FAILED;
    }
    printReport(report, flags, io);
    // a planner turn waited for this call: the model read the result and went on
    if (report.chat !== undefined && flags.json !== true) io.out(report.chat.reply);
    return report.outcome === (approve ? 'ok' : 'rejected') ? EXIT_OK : EXIT_FAILED;
  });
}
