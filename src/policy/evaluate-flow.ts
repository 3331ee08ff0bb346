import type { FlowAction, FlowSettings, RuleFlow } from './compile-flow.js';
import type { FlowVerdict, RuleRef, TraceStep } from './decision.js';
import type { FlowContext } from './flow-context.js';

/**
 * The flow gates of a model's call once an allow rule accepted it (docs/policy.md, "Flow
 * rules"; ADR 0066): which apply, which action wins, and the words for the decision. Only
 * calls with a flow context come here; the verdict lists were built at load.
 */

/** `deny` wins over `confirm`, which wins over `allow`. */
const RANK: Readonly<Record<FlowAction, number>> = { allow: 0, confirm: 1, deny: 2 };

/** Whether `after_untrusted` applies: untrusted content read, and a call that changes state. */
function untrustedApplies(flow: FlowContext): boolean {
  return flow.afterUntrusted && flow.changesState;
}

/** Whether `after_private` applies: private data read, an open-world tool, and (maybe) shared words. */
function privateApplies(flow: FlowContext, settings: FlowSettings): boolean {
  if (!flow.afterPrivate || !flow.openWorld) return false;
  return settings.privateMatch === 'any' || flow.sharesPrivateWords;
}

/** The verdicts of the gates that apply to the call, or null when none does. */
export function gatesOf(
  settings: FlowSettings,
  rule: RuleFlow,
  flow: FlowContext,
): readonly FlowVerdict[] | null {
  const u = untrustedApplies(flow);
  const p = privateApplies(flow, settings);
  if (u && p) return rule.lists[2];
  if (u) return rule.lists[0];
  if (p) return rule.lists[1];
  return null;
}

/** The action that decides: the strongest of the gates'. */
export function strongest(gates: readonly FlowVerdict[]): FlowAction {
  let action: FlowAction = 'allow';
  for (const g of gates) if (RANK[g.action] > RANK[action]) action = g.action;
  return action;
}

/**
 * Why a gate holds the call (`confirm`) or refuses it (`deny`): each gate with that action,
 * what the model had done, and the key that set it.
 */
export function gateReason(
  what: string,
  rule: RuleFlow,
  gates: readonly FlowVerdict[],
  action: 'confirm' | 'deny',
): string {
  let why = '';
  for (const g of gates) {
    if (g.action === action) why += `${why === '' ? '' : '; and '}${rule.text[g.gate].clause}`;
  }
  const head = action === 'deny' ? `${what} is denied` : `${what} needs a human's approval`;
  return `${head}: ${why}`;
}

/**
 * What an allowed call's reason adds for the gates it passed: a risk a rule accepted
 * (`after_untrusted accepted by <rule>`), or a human's approval of a gated call.
 */
export function passedNote(rule: RuleFlow, gates: readonly FlowVerdict[]): string {
  let note = '';
  for (const g of gates) note += rule.text[g.gate].passed;
  return note;
}

/** The trace of both gates for `explain`: applied (with its verdict) or not, and why. */
export function traceGates(
  trace: TraceStep[],
  ref: RuleRef,
  settings: FlowSettings,
  rule: RuleFlow,
  flow: FlowContext,
): void {
  const u = untrustedApplies(flow);
  trace.push(
    u
      ? applied(ref, rule.untrusted, 'untrusted content was read; the call changes state')
      : notApplied(ref, 'after_untrusted', untrustedMiss(flow)),
  );
  const p = privateApplies(flow, settings);
  trace.push(
    p
      ? applied(ref, rule.private, privateHit(settings))
      : notApplied(ref, 'after_private', privateMiss(flow)),
  );
}

function applied(ref: RuleRef, v: FlowVerdict, why: string): TraceStep {
  return {
    rule: ref,
    result: 'matched',
    gate: v.gate,
    detail: `${v.action}, set by ${v.set_by}: ${why}`,
  };
}

function notApplied(ref: RuleRef, gate: FlowVerdict['gate'], why: string): TraceStep {
  return { rule: ref, result: 'not_matched', gate, detail: why };
}

function untrustedMiss(flow: FlowContext): string {
  return flow.afterUntrusted
    ? 'the call does not change state'
    : 'the turn read no untrusted content';
}

function privateHit(settings: FlowSettings): string {
  return settings.privateMatch === 'any'
    ? 'private data was read; the tool reaches outside'
    : 'private data was read; the input shares words with it; the tool reaches outside';
}

function privateMiss(flow: FlowContext): string {
  if (!flow.afterPrivate) return 'the turn read no private data';
  if (!flow.openWorld) return 'the tool does not reach outside (not open-world)';
  return 'the input shares no word with the private data read (private_match: shared_words)';
}
