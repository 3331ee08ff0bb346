import type { ConfirmationTicket, ToolCallReport } from '../api/index.js';
import type { CapabilityReport, PlannedCall } from './ports.js';

/**
 * What the brain says when no intent matched and no LLM is configured: what the local rules
 * can do right now, the step that enables each of the others, and how to add a model.
 * `restart` names what reads the `llm` settings (`` restart `caesar up` ``).
 */
export function offlineReply(capabilities: CapabilityReport, restart: string): string {
  const lines = [
    "I can't answer that offline: no local rule matched it, and no language model is configured.",
    ...capabilityLines(capabilities, 'Offline, I can:'),
    'To answer anything else, add a language model: set `llm.provider` (openai, anthropic or ' +
      'ollama) and `llm.model` in caesar.yaml, or CAESAR_LLM__PROVIDER and CAESAR_LLM__MODEL, ' +
      `then ${restart}; openai and anthropic also need an API key (CAESAR_LLM__OPENAI__API_KEY, ` +
      'CAESAR_LLM__ANTHROPIC__API_KEY). Examples: docs/llm.md.',
  ];
  return lines.join('\n');
}

/** The working capabilities under `heading`, then the others with their steps. */
function capabilityLines(c: CapabilityReport, heading: string): string[] {
  const lines: string[] = [];
  if (c.ready.length > 0) lines.push(heading, ...c.ready.map((what) => `- ${what}`));
  else if (c.missing.length > 0) lines.push('None of my local rules can run yet.');
  if (c.missing.length > 0) {
    lines.push('Not available yet:');
    for (const m of c.missing) {
      if (m.steps.length === 1) lines.push(`- ${m.what}: ${m.steps[0]}`);
      else lines.push(`- ${m.what}:`, ...m.steps.map((step) => `  - ${step}`));
    }
  }
  return lines;
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
  /** Calls past those listed, counted only. @default 0 */
  more = 0,
): string {
  const ran = made.length === 0 ? 'no tool calls' : `${made.length} tool call(s)`;
  const lines = [
    `I stopped after ${maxIterations} planning rounds (brain.max_iterations) without a final answer; ` +
      `I made ${ran} on the way.`,
  ];
  if (notRun.length > 0) {
    lines.push('These calls did not run:', ...notRun.map((c) => `- ${describeCall(c)}`));
  }
  if (more > 0) lines.push(`- and ${more} more`);
  lines.push('Try a simpler request, or raise brain.max_iterations.');
  return lines.join('\n');
}

/** Calls of a plan_first reply round listed by name and input; the rest counted. */
const MAX_LISTED_AFTER_PLAN = 8;

/**
 * What the brain adds when a plan_first reply round asked for calls: none ran, since only the
 * calls planned before any result was read run (ADR 0069). Names them, like the cap does.
 */
export function afterPlanReply(calls: readonly PlannedCall[]): string {
  const shown = calls.slice(0, MAX_LISTED_AFTER_PLAN);
  const lines = [
    'These calls were asked for after the plan ran, so they did not run (llm.mode: plan_first ' +
      'runs only the calls planned before any tool result was read):',
    ...shown.map((c) => `- ${describeCall(c)}`),
  ];
  if (calls.length > shown.length) lines.push(`- and ${calls.length - shown.length} more`);
  lines.push('Ask again for what is still needed.');
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
export function unavailableReply(why: string, capabilities: CapabilityReport): string {
  const lines = [`I couldn't get an answer from a language model: ${why}.`];
  lines.push(...capabilityLines(capabilities, 'Without a model, I can still:'));
  return lines.join('\n');
}

/** A turn whose client left before the answer: what the audit row says in place of one. */
export function cancelledReply(): string {
  return 'Cancelled: the client closed the connection before the answer; no model was asked after that.';
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

/**
 * The note a stopped turn leaves in its owner's conversation (ADR 0068), stored as a user
 * turn: the model reads it as the operator's word, not as its own, and so does not ask for
 * the same calls again on the next message. It names only what the brain knows for itself
 * (the token that stopped the turn, the registered names of the rejected calls' tools),
 * never text a model or a tool wrote, which must not speak with the operator's voice.
 */
export function stoppedNote(by: string, tools: readonly string[]): string {
  const names = [...new Set(tools)].join(', ');
  return (
    `[Note from CAESAR for the operator: token \`${by}\` rejected the call(s) the assistant ` +
    `asked for (${names}) and stopped that turn. Do not ask for them again unless the user ` +
    'asks for them in a new message.]'
  );
}
