import type { ConfirmationTicket, ToolCallReport } from '../api/index.js';
import type { PlannedCall } from './ports.js';

/** What the brain says when no intent matched and no LLM is configured. */
export function offlineReply(capabilities: readonly string[]): string {
  const lines = ["I can't answer that offline: no local rule matched, and no LLM is configured."];
  if (capabilities.length > 0) {
    lines.push('Offline, I can:', ...capabilities.map((c) => `- ${c}`));
  }
  lines.push(
    'To answer anything else, configure an LLM planner (`llm.provider` in caesar.yaml; see docs/llm.md).',
  );
  return lines.join('\n');
}

/** Longest input shown for a call that did not run. */
const MAX_SHOWN_INPUT = 200;

/**
 * What the brain says when the planner used up its rounds: never silent, and it names the
 * calls the model still asked for, which did not run.
 */
export function capReply(
  maxIterations: number,
  made: readonly ToolCallReport[],
  notRun: readonly PlannedCall[],
): string {
  const ran = made.length === 0 ? 'no tool calls' : `${made.length} tool call(s)`;
  const lines = [
    `I stopped after ${maxIterations} planning rounds (brain.max_iterations) without a final answer; ` +
      `I made ${ran} on the way.`,
  ];
  if (notRun.length > 0) {
    lines.push('These calls did not run:', ...notRun.map((c) => `- ${describeCall(c)}`));
  }
  lines.push('Try a simpler request, or raise brain.max_iterations.');
  return lines.join('\n');
}

function describeCall(c: PlannedCall): string {
  if (c.input === undefined) return `${c.tool} (unreadable arguments)`;
  let text: string;
  try {
    text = JSON.stringify(c.input) ?? '';
  } catch {
    text = '';
  }
  const shown = text.length > MAX_SHOWN_INPUT ? `${text.slice(0, MAX_SHOWN_INPUT - 1)}…` : text;
  return `${c.tool} ${shown}`.trim();
}

/** No model answered: say so plainly, with what was tried, and what still works offline. */
export function unavailableReply(why: string, capabilities: readonly string[]): string {
  const lines = [`I couldn't get an answer from a language model: ${why}.`];
  if (capabilities.length > 0) {
    lines.push('Without a model, I can still:', ...capabilities.map((c) => `- ${c}`));
  }
  return lines.join('\n');
}

/** A planner turn paused for a human: what waits, and how to let it go on. */
export function pausedReply(tickets: readonly ConfirmationTicket[]): string {
  const lines = tickets.map(
    (t) =>
      `This needs your approval: ${t.summary}. Confirm with \`caesar confirm ${t.id}\` (expires ${t.expires_at}).`,
  );
  lines.push("I'll carry on once it is approved (or tell you if it is rejected).");
  return lines.join('\n');
}
