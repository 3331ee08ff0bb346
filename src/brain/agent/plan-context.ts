import type { ConversationTurn } from './ports.js';
import { readItemsOf, type SpecOf } from './turn-calls.js';

/**
 * What a plan_first plan is made from (ADR 0069, context minimisation): the conversation's
 * words, never a tool result of this turn or an earlier one. An answer the assistant wrote
 * after the conversation had read untrusted or private content may repeat it (an injected
 * instruction, the door code), so it is withheld too, replaced by one line that says so;
 * answers written before any such content, and after only trusted, non-private results (the
 * calculator's, the brain's own refusals), are shown. So the plan's calls were decided by
 * nothing a tool returned, and go to the gate having read nothing.
 */

/** What stands for withheld answers, one line per run of them. */
export const WITHHELD_ANSWER =
  '(an earlier answer, written after tool results were read; not shown while planning)';

export function planContext(
  history: readonly ConversationTurn[],
  specOf: SpecOf,
): ConversationTurn[] {
  const out: ConversationTurn[] = [];
  let tainted = false;
  for (const turn of history) {
    if (turn.role === 'tool') {
      tainted ||= readItemsOf([turn], specOf).some((r) => taints(r.label));
      continue;
    }
    if (turn.role === 'assistant' && tainted) {
      const last = out[out.length - 1];
      if (last?.role !== 'assistant' || last.content !== WITHHELD_ANSWER) {
        out.push({ role: 'assistant', content: WITHHELD_ANSWER });
      }
      continue;
    }
    out.push({ role: turn.role, content: turn.content });
  }
  return out;
}

function taints(label: { readonly trust: string; readonly private: boolean }): boolean {
  return label.trust === 'untrusted' || label.private;
}
