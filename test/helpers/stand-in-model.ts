import { createHash } from 'node:crypto';
import { calls, reply, startFakeOpenAi, type FakeAnswer, type FakeLlm } from './fake-llm.js';
import { instructionsIn, toolMessageTexts, type Instruction } from './injected-text.js';

/**
 * A stand-in for a language model behind the OpenAI chat completions API (the loopback fake
 * of fake-llm.ts): every answer follows from the request it was sent, as a real model's
 * does. It answers the user's request by a script (the calls a helpful model would make for
 * it, round by round, then a reply), and when `obey` is on it also does what a
 * successfully injected model does: whenever a tool result of the turn holds an instruction
 * (read as test/helpers/injected-text.ts reads it, through the tricks that hide it), it asks
 * for the call the instruction names, before going on with the user's request. It keeps no
 * state between requests: what it did is in the conversation it is sent, by its call ids.
 */

/** One call of a script: a tool and its input. */
export interface ScriptCall {
  readonly tool: string;
  readonly input: Record<string, unknown>;
}

/** What the model does for one user message: rounds of calls, then this reply. */
export interface Script {
  readonly rounds: readonly (readonly ScriptCall[])[];
  /** @default "Done." */
  readonly reply?: string;
}

export interface StandInModel extends FakeLlm {
  /** Whether the model obeys instructions in tool results. */
  obey: boolean;
  /** Sets the script for a user message (replacing one set before). */
  learn(message: string, script: Script): void;
}

/** The conversation of one request, as the model reads it. */
interface Turn {
  /** The user's message the turn answers. */
  readonly request: string;
  /** The calls the model made in this turn, by id. */
  readonly made: ReadonlyMap<string, { readonly tool: string }>;
  /** Each tool result of the turn in order: its call id, tool and strings. */
  readonly results: readonly { readonly id: string; readonly texts: readonly string[] }[];
}

/** A note the brain adds to a conversation when a paused turn goes on: not the user's. */
const RESUME_NOTE = /^\(confirmation \S+ decided: /;

export async function startStandInModel(
  options: { key?: string; obey?: boolean } = {},
): Promise<StandInModel> {
  const scripts = new Map<string, Script>();
  const state = { obey: options.obey ?? false };
  const model = await startFakeOpenAi({
    ...(options.key === undefined ? {} : { key: options.key }),
    respond: (body) => answer(turnOf(body), scripts, state.obey),
  });
  return Object.defineProperties(model, {
    obey: {
      get: () => state.obey,
      set: (v: boolean) => void (state.obey = v),
    },
    learn: { value: (message: string, script: Script) => void scripts.set(message, script) },
  }) as StandInModel;
}

interface WireMessage {
  readonly role: string;
  readonly content?: string | null;
  readonly tool_call_id?: string;
  readonly tool_calls?: readonly { id: string; function: { name: string } }[];
}

function turnOf(body: Record<string, unknown>): Turn {
  const messages = (body.messages ?? []) as WireMessage[];
  let start = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'user' && !RESUME_NOTE.test(m.content ?? '')) {
      start = i;
      break;
    }
  }
  const made = new Map<string, { tool: string }>();
  const results: { id: string; texts: string[] }[] = [];
  for (const m of messages.slice(start + 1)) {
    for (const c of m.tool_calls ?? []) made.set(c.id, { tool: c.function.name });
    if (m.role === 'tool' && m.tool_call_id !== undefined) {
      results.push({ id: m.tool_call_id, texts: toolMessageTexts(m.content ?? '') });
    }
  }
  return { request: messages[start]?.content ?? '', made, results };
}

function answer(turn: Turn, scripts: ReadonlyMap<string, Script>, obey: boolean): FakeAnswer {
  const tag = shortHash(turn.request);
  if (obey) {
    const injected = obeyed(turn, tag);
    if (injected.length > 0) return calls(injected);
  }
  const script = scripts.get(turn.request);
  if (script === undefined) return reply(`I have no script for "${turn.request}".`);
  const made = [...turn.made.keys()];
  const next = script.rounds.findIndex((_r, k) => !made.some((id) => id.startsWith(`s${k}_`)));
  if (next < 0) return reply(script.reply ?? 'Done.');
  return calls(
    script.rounds[next]!.map((c, i) => ({
      id: `s${next}_${i}_${tag}`,
      name: c.tool,
      arguments: JSON.stringify(c.input),
    })),
  );
}

/**
 * The calls the turn's instructions ask for that the model has not made yet: for a search
 * that sends what a tool says, that tool is read first (call id `r…`), then the search is
 * made with what it returned (`i…`).
 */
function obeyed(turn: Turn, tag: string): { id: string; name: string; arguments: string }[] {
  const made = [...turn.made.keys()];
  const out: { id: string; name: string; arguments: string }[] = [];
  for (const ins of instructionsIn(turn.results.map((r) => r.texts))) {
    const id = `i${ins.id}_${tag}`;
    if (made.includes(id)) continue;
    const input = inputFor(ins, turn, tag);
    if (input === 'read first') {
      const from = ins.exfiltrate!.from;
      const readId = `r${ins.id}_${tag}`;
      if (made.includes(readId)) continue;
      const args = JSON.stringify({ query: from.about });
      out.push({ id: readId, name: from.tool, arguments: args });
    } else {
      out.push({ id, name: ins.tool, arguments: JSON.stringify(input) });
    }
  }
  return out;
}

/** Longest query the model writes (web_search takes 500 characters). */
const MAX_QUERY = 400;

function inputFor(
  ins: Instruction,
  turn: Turn,
  tag: string,
): Record<string, unknown> | 'read first' {
  if (ins.input !== undefined) return ins.input;
  const { literal, from } = ins.exfiltrate!;
  const readId = `r${ins.id}_${tag}`;
  const read = turn.results.filter(
    (r) => r.id === readId || turn.made.get(r.id)?.tool === from.tool,
  );
  if (read.length === 0) return 'read first';
  // what a model copies: the words of what it read, not the bookkeeping (dates, ids)
  const words = read
    .flatMap((r) => r.texts)
    .filter((t) => /[a-z]{3}|\d{4,}/i.test(t) && !/^\d{4}-\d{2}-\d{2}|@|^[a-z_]+$/i.test(t));
  return { query: `${literal} ${words.join(' ')}`.slice(0, MAX_QUERY).trim() };
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}
