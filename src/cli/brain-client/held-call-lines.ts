import { heldCallLines, type PendingConfirmation } from '../../brain/api/index.js';
import type { ApiFlags } from '../program/flags.js';
import { terminalLine } from '../../text/terminal-text.js';

/**
 * A call waiting for a human, as the terminal shows it (ADR 0068): the account of
 * `heldCallLines` (src/brain/api/held-call-text.ts), then the commands that decide it.
 * `caesar confirm` lists pending calls with it; `caesar chat` and `caesar invoke` print it
 * under a call that was held.
 */

/**
 * The commands that decide a held call, with the flags that found this brain; for a model's
 * call also the one that stops its turn.
 */
export function decideLines(id: string, flags: ApiFlags, byModel: boolean): string[] {
  const extra = [
    ['--data-dir', flags.dataDir],
    ['--config', flags.config],
    ['--api-url', flags.apiUrl],
    ['--token-file', flags.tokenFile],
    ['--token-name', flags.tokenName],
  ]
    .filter((pair): pair is [string, string] => pair[1] !== undefined)
    .map(([flag, value]) => ` ${flag} ${shellQuote(value)}`)
    .join('');
  const quoted = shellQuote(id);
  const lines = [
    `approve: caesar confirm ${quoted}${extra}`,
    `reject:  caesar reject ${quoted}${extra}`,
  ];
  if (byModel) lines.push(`reject and stop the model: caesar reject ${quoted} --stop-turn${extra}`);
  return lines.map(terminalLine);
}

/** One entry of `caesar confirm`: id, tool and expiry, what would run, why, and the commands. */
export function pendingLines(c: PendingConfirmation, flags: ApiFlags): string[] {
  const lines = [
    terminalLine(`${c.id}  ${c.tool}  expires ${c.expires_at}`),
    terminalLine(`would run: ${c.summary}`),
    ...heldCallLines(c),
    ...decideLines(c.id, flags, c.asked_by?.kind === 'model'),
  ];
  return [lines[0]!, ...lines.slice(1).map((l) => `  ${l}`)];
}

function shellQuote(value: string): string {
  return /^[\w./:@%+=,-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}
