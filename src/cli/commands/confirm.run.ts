import type { ConfirmResponse } from '../../brain/api/index.js';
import { ApiError } from '../brain-client/client.js';
import {
  consoleIo,
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
  printReport,
  withClient,
  type ApiCliIo,
} from '../brain-client/command.js';
import type { ApiFlags } from '../program/flags.js';
import { pendingLines } from '../brain-client/held-call-lines.js';
import { terminalLine } from '../../text/terminal-text.js';

/**
 * `caesar confirm [id]` / `caesar reject <id> [--stop-turn]`: the human answer to a call
 * waiting for approval, and the list of what waits.
 */

interface ConfirmFlags extends ApiFlags {
  json?: boolean;
  /** `reject` only: stop the model's turn that asked for the call too (ADR 0068). */
  stopTurn?: boolean;
}

/** `caesar confirm <id>` / `caesar reject <id>`: exit 0 when the call ran / was rejected. */
export async function runConfirm(
  id: string,
  approve: boolean,
  flags: ConfirmFlags,
  io: ApiCliIo = consoleIo,
): Promise<number> {
  const verb = approve ? 'confirm' : 'reject';
  if (id.length === 0 || id.length > 256) {
    io.err(`caesar ${verb}: expected a confirmation id`);
    return EXIT_USAGE;
  }
  const stopTurn = !approve && flags.stopTurn === true;
  return withClient(verb, flags, io, async (client) => {
    let report: ConfirmResponse;
    try {
      report = await client.confirm(id, approve, stopTurn ? { stopTurn } : {});
    } catch (err) {
      if (!(err instanceof ApiError) || err.httpStatus !== 404) throw err;
      io.err(
        terminalLine(
          `caesar ${verb}: no pending confirmation ${id} (expired, already used, or voided by a policy reload)`,
        ),
      );
      return EXIT_FAILED;
    }
    printReport(report, flags, io);
    if (flags.json !== true) {
      // a planner turn waited for this call: the model read the result and went on
      if (report.chat !== undefined) io.out(report.chat.reply);
      if (stopTurn) io.out(stoppedLine(report));
    }
    return report.outcome === (approve ? 'ok' : 'rejected') ? EXIT_OK : EXIT_FAILED;
  });
}

/** What `--stop-turn` did: the turn stopped and its other calls rejected, or no turn waited. */
function stoppedLine(report: ConfirmResponse): string {
  if (report.stopped !== true) {
    return 'no model turn waited for this call: it was a plain rejection';
  }
  const others = (report.also_rejected ?? []).map((r) => `${r.id} (${r.tool})`);
  const also = others.length === 0 ? '' : `; also rejected: ${others.join(', ')}`;
  return terminalLine(`stopped the turn: the model is not asked again${also}`);
}

/**
 * `caesar confirm` without an id: every call waiting for a human, oldest first, with who
 * asked, why it is held and what the model had read (ADR 0068); exit 0.
 */
export async function runConfirmList(
  flags: ConfirmFlags,
  io: ApiCliIo = consoleIo,
): Promise<number> {
  return withClient('confirm', flags, io, async (client) => {
    const pending = await client.confirmations();
    if (flags.json === true) {
      io.out(JSON.stringify(pending, null, 2));
      return EXIT_OK;
    }
    if (pending.length === 0) io.out('nothing is waiting for approval');
    pending.forEach((c, i) => {
      if (i > 0) io.out('');
      pendingLines(c, flags).forEach((line) => io.out(line));
    });
    return EXIT_OK;
  });
}
