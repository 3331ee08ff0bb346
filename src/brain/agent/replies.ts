import type { ConfirmationTicket, ToolCallReport } from '../api/index.js';
import { spokenNow } from '../../clock/index.js';
import type { Capability, CapabilityReport, PlannedCall } from './ports.js';
import { jsonTextOf } from '../../text/index.js';

/**
 * Where the full setup details are: never in a chat reply, whose box on a phone they would
 * fill. The dashboard turns "the Tools panel" into a link to it.
 */
export const SETUP_POINTER =
  'Setup details: `/help setup` in `caesar chat`, or the Tools panel on the dashboard.';

/** What the brain itself answers without a model (ADR 0074), listed first. */
export const CLOCK_CAPABILITY: Capability = {
  what: 'tell the time and date',
  example: 'what time is it',
};

/** Most examples a short reply gives. */
const MAX_EXAMPLES = 3;

/**
 * What the brain says when no rule matched and no model is configured: that, two or three
 * things that work now as examples, and where the setup details are.
 */
export function offlineReply(capabilities: CapabilityReport): string {
  return [
    'No local rule matched that, and no language model is set up to answer anything else.',
    `Things I can do now: ${examples([CLOCK_CAPABILITY, ...capabilities.ready])}. ` +
      'Ask "what can you do" for the list.',
    SETUP_POINTER,
  ].join('\n');
}

/** Most things a greeting names; the rest is "and other things". */
const MAX_GREETING_ITEMS = 4;

/** A greeting, answered briefly, with one line on what works now. */
export function greetingReply(capabilities: CapabilityReport): string {
  const all = [CLOCK_CAPABILITY, ...capabilities.ready].map((c) => c.what);
  const what = all.slice(0, MAX_GREETING_ITEMS);
  if (all.length > what.length) what.push('other things');
  return [
    'Hello! No language model is set up, so I answer from local rules.',
    `Right now I can ${joinAnd(what)}. Ask "what can you do" for more.`,
  ].join('\n');
}

/**
 * "What can you do": what works now; what could work, each with its first step in a few
 * words; then where the details are.
 */
export function helpReply(capabilities: CapabilityReport): string {
  const lines = ['Without a language model, I can:'];
  for (const c of [CLOCK_CAPABILITY, ...capabilities.ready]) lines.push(`- ${said(c)}`);
  lines.push('Could work after one step:');
  for (const m of capabilities.missing) lines.push(`- ${m.what}: ${m.step}`);
  lines.push('- answer anything else: add a language model (llm.provider and llm.model)');
  const planned = capabilities.planned ?? [];
  if (planned.length > 0) lines.push('Planned, not served yet (the catalog lists them):');
  for (const p of planned) lines.push(`- ${p.tool}: ${p.purpose}`);
  lines.push(SETUP_POINTER);
  return lines.join('\n');
}

/** "What time is it" and "what's the date", read on the brain's clock in its zone. */
export function clockReply(kind: 'time' | 'date', now: Date, timeZone: string): string {
  const n = spokenNow(now, timeZone);
  const zone = `${timeZone}, ${n.offset}`;
  if (kind === 'time') return `It's ${n.time} on ${n.weekday}, ${n.longDate} (${zone}).`;
  return `Today is ${n.weekday}, ${n.longDate} (${n.date}, ${zone}).`;
}

/**
 * The steps that add a language model, for `/help setup` (never a chat reply). `restart`
 * names what reads the `llm` settings (`` restart `caesar up` ``).
 */
export function modelSteps(restart: string): string[] {
  return [
    'set `llm.provider` (openai, anthropic or ollama) and `llm.model` in caesar.yaml, or ' +
      `CAESAR_LLM__PROVIDER and CAESAR_LLM__MODEL, then ${restart}`,
    'openai and anthropic also need an API key: CAESAR_LLM__OPENAI__API_KEY or ' +
      'CAESAR_LLM__ANTHROPIC__API_KEY (examples: docs/llm.md)',
  ];
}

/** `do arithmetic (e.g. 'what is 17 * 23')`. */
function said(c: Capability): string {
  return c.example === undefined ? c.what : `${c.what} (e.g. '${c.example}')`;
}

/** `'what time is it', 'what is 17 * 23' or 'search for …'`: the first few examples. */
function examples(capabilities: readonly Capability[]): string {
  const shown = capabilities
    .flatMap((x) => (x.example === undefined ? [] : [`'${x.example}'`]))
    .slice(0, MAX_EXAMPLES);
  return joinAnd(shown, 'or');
}

function joinAnd(items: readonly string[], last = 'and'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${last} ${items.at(-1)!}`;
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
  const text = jsonTextOf(c.input, '');
  const shown = text.length > MAX_SHOWN_INPUT ? `${text.slice(0, MAX_SHOWN_INPUT - 1)}…` : text;
  return `${c.tool} ${shown}`.trim();
}

/** No model answered: say so plainly, with what was tried, and what still works offline. */
export function unavailableReply(why: string, capabilities: CapabilityReport): string {
  // the clock is not among them: with a model configured, the model tells the time
  const shown = examples(capabilities.ready);
  return [
    `I couldn't get an answer from a language model: ${why}.`,
    shown === ''
      ? 'None of my local rules can run now either.'
      : `Without it I can still answer, for example: ${shown}.`,
    SETUP_POINTER,
  ].join('\n');
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
