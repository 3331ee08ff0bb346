import { CALL_OUTCOMES, type CallOutcome } from '../api/index.js';
import { renderText } from './input-template.js';
import { parseTemplate, type TemplateParts } from './placeholder.js';
import type { SlotValue } from './slots.js';

/** What happened to the call a matched rule asked for: the brain's `CallOutcome`. */
export const INTENT_OUTCOMES = CALL_OUTCOMES;
type IntentOutcomeKind = CallOutcome;
/**
 * The replies a rule words: one per outcome; `unchanged` for an `ok` call whose result says
 * nothing changed (`result.changed === false`, as `call_service` reports when a light stays
 * off), so a rule never answers "Done" for an action that did not happen; and
 * `not_configured` for a call that failed because the tool's backend is not set up, whose
 * reason names the key to set.
 */
export type ReplyKind = IntentOutcomeKind | 'unchanged' | 'not_configured';

/** The outcome of the call, as the brain reports it; `render` reads it. */
export interface IntentOutcome {
  /**
   * The callable that was judged, when it is not the rule's own name: a Home Assistant call
   * sent to the other name of the same action (ADR 0093). @default the rule's tool
   */
  readonly tool?: string;
  readonly outcome: IntentOutcomeKind;
  readonly result?: unknown;
  /** Why it was refused or failed, in words. */
  readonly reason?: string;
  readonly error?: { readonly code: string; readonly message: string };
  readonly confirmation?: {
    readonly id: string;
    readonly summary: string;
    readonly expires_at: string;
  };
}

/** Longest reply, in characters; a longer one is cut and ends with `…`. */
export const MAX_REPLY_CHARS = 4000;

/**
 * Replies for the outcomes other than `ok` when a rule gives none. `{reason}` is the outcome's
 * reason, or the error message when there is no reason.
 */
export const DEFAULT_REPLIES: Readonly<Record<Exclude<ReplyKind, 'ok'>, string>> = {
  failed: '{tool} failed: {reason|or:no details given}',
  denied: "I'm not allowed to use {tool}: {reason|or:the policy does not allow it}",
  rate_limited:
    "I can't use {tool} right now: {reason|or:it is over its rate limit}. Try again in a moment.",
  confirmation_required:
    'This needs your approval: {confirmation.summary|or:a call of the tool}. Confirm with ' +
    '`caesar confirm {confirmation.id}` (expires {confirmation.expires_at}).',
  rejected: '{tool} was not run: {reason|or:the call was rejected}',
  unchanged: '{tool} ran, but nothing changed: {result.summary|or:no state changed.}',
  not_configured: '{tool} is not set up yet: {reason|or:its backend is not configured}',
};

/** Compiled reply templates of one rule, by kind. */
export type ReplyTemplates = Readonly<Record<ReplyKind, TemplateParts>>;

const COMPILED_DEFAULTS = Object.fromEntries(
  Object.entries(DEFAULT_REPLIES).map(([k, v]) => [k, parseTemplate(v)]),
) as Readonly<Record<Exclude<ReplyKind, 'ok'>, TemplateParts>>;

/** A rule's templates: its own where it has one, the defaults elsewhere. */
export function replyTemplates(
  ok: TemplateParts,
  overrides: Partial<Record<ReplyKind, TemplateParts>>,
): ReplyTemplates {
  return { ...COMPILED_DEFAULTS, ...overrides, ok };
}

/** The facts a reply is rendered from. */
interface ReplyFacts {
  readonly intent: string;
  readonly tool: string;
  readonly slots: Readonly<Record<string, SlotValue>>;
}

/**
 * Renders the reply for an outcome. Never throws: a missing value renders as empty text
 * (or as the `|or:` text), an unknown outcome is answered as `failed`, and the reply is cut
 * at MAX_REPLY_CHARS.
 */
export function renderReply(
  templates: ReplyTemplates,
  facts: ReplyFacts,
  outcome: IntentOutcome,
): string {
  try {
    const kind = replyKind(outcome);
    const call = {
      tool: outcome.tool ?? facts.tool,
      intent: facts.intent,
      outcome: kind,
      result: outcome.result,
      reason: outcome.reason ?? outcome.error?.message,
      error: outcome.error,
      confirmation: outcome.confirmation,
    };
    return cap(renderText(templates[kind], { slots: facts.slots, call }));
  } catch {
    // Only a hostile outcome (a throwing getter) gets here.
    return `${facts.tool}: the reply could not be worded.`;
  }
}

/** Which reply an outcome gets; an unknown outcome is answered as `failed`. */
function replyKind(outcome: IntentOutcome): ReplyKind {
  if (!(INTENT_OUTCOMES as readonly string[]).includes(outcome.outcome)) return 'failed';
  if (outcome.outcome === 'failed' && outcome.error?.code === 'not_configured') {
    return 'not_configured';
  }
  if (outcome.outcome !== 'ok') return outcome.outcome;
  const changed = (outcome.result as { changed?: unknown } | null | undefined)?.changed;
  return changed === false ? 'unchanged' : 'ok';
}

function cap(text: string): string {
  return text.length <= MAX_REPLY_CHARS ? text : `${text.slice(0, MAX_REPLY_CHARS - 1)}…`;
}
