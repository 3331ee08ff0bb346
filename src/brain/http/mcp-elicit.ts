import type {
  ClientCapabilities,
  ElicitRequestFormParams,
} from '@modelcontextprotocol/sdk/types.js';
import { heldCallLines, type ToolCallReport } from '../api/index.js';

/**
 * A held call as a question to an MCP client's user (elicitation, ADR 0094): the brain's
 * `/mcp` asks it, `caesar mcp serve --stdio` passes it on. Apart from mcp.ts so that the
 * stdio command loads these two functions, not the brain's routes.
 */

/** Characters of the account of a held call a question shows, at most. */
const MAX_ASK_CHARS = 4000;

/**
 * Whether the client takes form questions: `elicitation.form`, or an `elicitation: {}` of a
 * revision before URL mode, which meant forms (MCP 2025-11-25, "Elicitation").
 */
export function asksForms(capabilities: ClientCapabilities | undefined): boolean {
  const e = capabilities?.elicitation;
  return e !== undefined && (e.form !== undefined || e.url === undefined);
}

/** The question for a held call: what would run, who asked, why it is held. */
export function askFor(report: ToolCallReport): ElicitRequestFormParams {
  const ticket = report.confirmation;
  const lines = [
    `${report.tool} is held for a person: ${ticket?.summary ?? ''}`,
    ...heldCallLines({
      ...ticket,
      ...(report.rule === undefined ? {} : { rule: report.rule }),
      ...(report.rule_at === undefined ? {} : { rule_at: report.rule_at }),
      ...(report.reason === undefined ? {} : { reason: report.reason }),
    }),
    `It runs only if you approve it, before ${ticket?.expires_at ?? '?'}.`,
  ];
  let message = lines.join('\n');
  if (message.length > MAX_ASK_CHARS) message = `${message.slice(0, MAX_ASK_CHARS - 1)}…`;
  return {
    mode: 'form',
    message,
    requestedSchema: {
      type: 'object',
      properties: {
        approve: {
          type: 'boolean',
          title: 'Approve',
          description: `Run ${report.tool} now (no: reject it)`,
          default: false,
        },
      },
      required: ['approve'],
    },
  };
}
