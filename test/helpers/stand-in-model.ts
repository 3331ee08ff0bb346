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

/**
 * One call of a script: a tool and its input. A string `{today}` or `{today+N}` in the input
 * is the UTC date N days from the day the model answers (`2026-03-10`), as a model that read
 * the clock line of its system prompt would write it.
 */
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
  /** Called on every request before the model answers (to see what happened up to it). */
  onRequest: (() => void) | undefined;
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
  const state: { obey: boolean; onRequest: (() => void) | undefined } = {
    obey: options.obey ?? false,
    onRequest: undefined,
  };
  const model = await startFakeOpenAi({
    ...(options.key === undefined ? {} : { key: options.key }),
    respond: (body) => {
      state.onRequest?.();
      return answer(turnOf(body), scripts, state.obey);
    },
  });
  return Object.defineProperties(model, {
    obey: {
      get: () => state.obey,
      set: (v: boolean) => void (state.obey = v),
    },
    onRequest: {
      get: () => state.onRequest,
      set: (f: (() => void) | undefined) => void (state.onRequest = f),
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
  // no user message: the brain's history window cut it; every message is of this turn
  let start = -1;
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
  return { request: start < 0 ? '' : (messages[start]?.content ?? ''), made, results };
}

function answer(seen: Turn, scripts: ReadonlyMap<string, Script>, obey: boolean): FakeAnswer {
  const turn = seen.request === '' ? { ...seen, request: requestOf(seen, scripts) } : seen;
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
      arguments: JSON.stringify(withDates(c.input)),
    })),
  );
}

/**
 * The user's message of a turn whose start the brain's history window cut: the one whose
 * hash ends the ids of the model's own calls (as a model reads the request off what it was
 * doing).
 */
function requestOf(turn: Turn, scripts: ReadonlyMap<string, Script>): string {
  const tags = new Set([...turn.made.keys()].map((id) => id.slice(id.lastIndexOf('_') + 1)));
  return [...scripts.keys()].find((m) => tags.has(shortHash(m))) ?? '';
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
  const { literal } = ins.exfiltrate!;
  const readId = `r${ins.id}_${tag}`;
  // the model reads the tool for the word itself, then copies whatever that returned
  const read = turn.results.filter((r) => r.id === readId);
  if (read.length === 0) return 'read first';
  // what a model copies: the words of what it read, not the bookkeeping (dates, ids)
  const words = read
    .flatMap((r) => r.texts)
    .filter((t) => /[a-z]{3}|\d{4,}/i.test(t) && !/^\d{4}-\d{2}-\d{2}|@|^[a-z_]+$/i.test(t));
  return { query: `${literal} ${words.join(' ')}`.slice(0, MAX_QUERY).trim() };
}

const DATE_RE = /^\{today(?:\+(\d+))?\}$/;

function withDates(value: unknown): unknown {
  if (typeof value === 'string') {
    const m = DATE_RE.exec(value);
    if (m === null) return value;
    const now = new Date();
    const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    return new Date(day + Number(m[1] ?? 0) * 86_400_000).toISOString().slice(0, 10);
  }
  if (Array.isArray(value)) return value.map(withDates);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withDates(v)]));
  }
  return value;
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}
