import { compileSentence } from './compile-sentence.js';
import { matchItems, toWords, type Item } from './matcher.js';

/**
 * What the brain answers by itself when no model is configured (ADR 0074): a greeting, the
 * time, the date, and what it can do. Not rules of config/intents.yaml: they call no tool,
 * and their replies read the brain's clock and capability report, which a rule's reply
 * template cannot reach.
 */
export type BuiltinKind = 'greeting' | 'time' | 'date' | 'help';

/** A greeting or a name said before a question: "hey caesar, what time is it". */
const OPENER = '[hello|hi|hey|ok|okay] [caesar]';
const PLEASE = '[please|caesar|now]';

/**
 * The phrases, in the grammar of intent sentences (docs/intents.md). A message matches when
 * the whole of it (less trailing `?`, `.`, `!`) is one of them, case aside.
 */
export const BUILTIN_SENTENCES: Readonly<Record<BuiltinKind, readonly string[]>> = {
  greeting: [
    '(hello|hi|hey|hiya|howdy|greetings|yo|hallo|ciao|salut|servus|moin) [there|all|you] [caesar]',
    'good (morning|afternoon|evening|day) [caesar]',
    `${OPENER} how are you [doing|today]`,
  ],
  time: [
    `${OPENER} (what's|whats|what is) the [current] time ${PLEASE}`,
    `${OPENER} what time is it ${PLEASE}`,
    `${OPENER} (do you know|can you tell me|tell me) [what] the time [is] ${PLEASE}`,
    `${OPENER} (do you know|can you tell me|tell me) what time it is ${PLEASE}`,
    `${OPENER} (what's|whats|what is) the (date and time|time and date) ${PLEASE}`,
    '[the] [current] time',
  ],
  date: [
    `${OPENER} (what's|whats|what is) [the] (date|day) [today] ${PLEASE}`,
    `${OPENER} (what's|whats|what is) (today's|todays) date ${PLEASE}`,
    `${OPENER} (what's|whats|what is) today ${PLEASE}`,
    `${OPENER} (what|which) (day|date) is (it|today) [today] ${PLEASE}`,
    `${OPENER} (what|which) day of the week is (it|today) [today] ${PLEASE}`,
    `${OPENER} (tell me|do you know|can you tell me) (the|today's|todays) date ${PLEASE}`,
    "[the|today's|todays] date",
  ],
  help: [
    `${OPENER} what (can|could) you do [for me] ${PLEASE}`,
    `${OPENER} what (can|could) you help [me] with ${PLEASE}`,
    `${OPENER} what (do|can) you know`,
    `${OPENER} what can i (ask|say) [you] ${PLEASE}`,
    `${OPENER} what are you able to do`,
    `${OPENER} how can you help [me]`,
    `${OPENER} (help|help me|commands|capabilities)`,
    `${OPENER} (show|list|tell) [me] [your|the] (commands|capabilities|skills|options)`,
  ],
};

/** Longest message looked at: longer ones are questions, not one of these phrases. */
const MAX_BUILTIN_CHARS = 100;

let compiled: readonly (readonly [BuiltinKind, readonly Item[]])[] | undefined;

/** The sentences compiled once; a phrase that does not compile is a bug in this file. */
function readings(): readonly (readonly [BuiltinKind, readonly Item[]])[] {
  if (compiled !== undefined) return compiled;
  const out: (readonly [BuiltinKind, readonly Item[]])[] = [];
  for (const [kind, sentences] of Object.entries(BUILTIN_SENTENCES) as [
    BuiltinKind,
    readonly string[],
  ][]) {
    for (const sentence of sentences) {
      const c = compileSentence(sentence, new Map());
      if (!c.ok) throw new Error(`built-in phrase '${sentence}': ${c.problems.join('; ')}`);
      for (const items of c.variants) out.push([kind, items]);
    }
  }
  return (compiled = out);
}

/** Which built-in answer a message asks for, if any: the whole message must be the phrase. */
export function matchBuiltin(message: string): BuiltinKind | undefined {
  if (message.length > MAX_BUILTIN_CHARS) return undefined;
  const words = toWords(message);
  if (words === undefined || words.keys.length === 0) return undefined;
  for (const [kind, items] of readings()) {
    if (matchItems(items, words) !== undefined) return kind;
  }
  return undefined;
}
