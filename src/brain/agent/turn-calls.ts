import { randomUUID } from 'node:crypto';
import { errorEntry, errorMessage } from '../../errors/index.js';
import type { ToolCallReport } from '../api/index.js';
import {
  LOCAL_LABEL,
  labelOf,
  textsOf,
  UNKNOWN_LABEL,
  type ContentLabel,
  type ReadItem,
} from '../gateway/provenance.js';
import type { ToolSpec } from '../../protocol/index.js';
import { terminalLine } from '../../text/index.js';
import type {
  ConversationTurn,
  Conversations,
  PlannedCall,
  SessionRef,
  ToolTurnRecord,
} from './ports.js';

/**
 * The calls of one model turn, bounded and labelled (ADR 0065): which of a round's calls run
 * (a tool the model was offered, within the per-round and per-turn caps), the records they
 * leave in the conversation with their provenance labels, and what a round's planner had
 * read, from those labels.
 */

/** What the brain needs to know of a tool to label its result: its spec, or null. */
export type SpecOf = (
  tool: string,
) => Pick<
  ToolSpec,
  'annotations' | 'output_trust' | 'reads_private' | 'resource_requirements'
> | null;

/** A turn's running count of calls, kept across a pause for confirmation. */
export interface TurnBudget {
  /** Calls sent to the gate in this turn so far. */
  calls: number;
  /** Per-rule counts for `rate_limit: {per: turn}`, filled by the policy. */
  readonly turnCounts: Map<string, number>;
}

export function newTurnBudget(): TurnBudget {
  return { calls: 0, turnCounts: new Map() };
}

/** How many of a round's calls are looked at; the rest are counted and dropped unanswered. */
const MAX_CONSIDERED_EXTRA = 8;
/** Invented names an audit row lists, each clamped. */
const MAX_NAMES_LISTED = 16;
const MAX_NAME_CHARS = 64;

/** Why a call of a round did not reach the gate. */
export type Refusal = 'unknown_tool' | 'over_round_cap' | 'over_turn_cap';

/** A round's calls sorted: those to run, those refused (with reports), those dropped. */
export interface RoundPlan {
  /** Index into the round's calls -> the report of a refused call. */
  readonly refused: Map<number, ToolCallReport>;
  /** Indices of the calls that go to the gate, in the model's order. */
  readonly run: number[];
  /** Calls past what one round looks at: neither run nor answered (the cap's report says so). */
  readonly dropped: number;
  /** For the round's `llm.called` row: counts by refusal, and invented names (clamped). */
  readonly audit: {
    readonly refused: Partial<Record<Refusal, number>>;
    readonly dropped: number;
    readonly invented: string[];
  };
}

interface Caps {
  readonly perRound: number;
  readonly perTurn: number;
}

/**
 * Sorts a round's calls: a name that is neither offered nor a tool the registry knows (an
 * invention) is refused before anything else sees it (no policy, metric or audit `tool`
 * column); of the others, the first `perRound`
 * run while the turn is under `perTurn`; the rest are refused and the model is told which.
 * Only `perRound + 8` calls are looked at; beyond them calls are dropped, counted.
 */
export function planRound(
  calls: readonly PlannedCall[],
  known: { has(name: string): boolean },
  offered: ReadonlySet<string>,
  budget: TurnBudget,
  caps: Caps,
): RoundPlan {
  const considered = Math.min(calls.length, caps.perRound + MAX_CONSIDERED_EXTRA);
  const dropped = calls.length - considered;
  const refused = new Map<number, ToolCallReport>();
  const run: number[] = [];
  const counts: Partial<Record<Refusal, number>> = {};
  const invented = new Set<string>();
  const refuse = (i: number, why: Refusal, report: ToolCallReport) => {
    refused.set(i, report);
    counts[why] = (counts[why] ?? 0) + 1;
  };
  for (let i = 0; i < considered; i++) {
    const call = calls[i]!;
    if (!known.has(call.tool)) {
      const name = shownName(call.tool);
      if (invented.size < MAX_NAMES_LISTED) invented.add(name);
      refuse(i, 'unknown_tool', unknownTool(call, name, offered));
    } else if (run.length >= caps.perRound) {
      refuse(i, 'over_round_cap', overCap(call, 'round', caps.perRound, dropped));
    } else if (budget.calls >= caps.perTurn) {
      refuse(i, 'over_turn_cap', overCap(call, 'turn', caps.perTurn, dropped));
    } else {
      run.push(i);
      budget.calls += 1;
    }
  }
  return { refused, run, dropped, audit: { refused: counts, dropped, invented: [...invented] } };
}

/** A model's tool name as a report, a record and an audit row may show it: clamped, escaped. */
function shownName(name: string): string {
  const clamped = name.length > MAX_NAME_CHARS ? `${name.slice(0, MAX_NAME_CHARS)}…` : name;
  return terminalLine(clamped);
}

function refusedReport(
  call: Pick<PlannedCall, 'input'>,
  tool: string,
  code: 'unknown_tool' | 'too_many_calls',
  message: string,
): ToolCallReport {
  return {
    tool,
    input: call.input,
    outcome: 'failed',
    reason: message,
    error: { code, message, retryable: errorEntry(code).retryable },
    decision_id: randomUUID(),
    duration_ms: 0,
  };
}

function unknownTool(
  call: PlannedCall,
  name: string,
  offered: ReadonlySet<string>,
): ToolCallReport {
  return unknownToolReport(call, name, name, offered);
}

/**
 * The refusal of a tool name the model was not offered, listing what it was offered:
 * `name` is the name refused, `reportedAs` the call it answers (the name itself, or the
 * brain's action that named it, such as `check_preconditions`).
 */
export function unknownToolReport(
  call: Pick<PlannedCall, 'input'>,
  reportedAs: string,
  name: string,
  offered: Iterable<string>,
): ToolCallReport {
  const list = [...offered].slice(0, 32).join(', ') || 'none';
  const message = errorMessage('unknown_tool', { name, offered: list });
  return refusedReport(call, reportedAs, 'unknown_tool', message);
}

function overCap(
  call: PlannedCall,
  per: 'round' | 'turn',
  cap: number,
  dropped: number,
): ToolCallReport {
  const setting = per === 'round' ? 'llm.max_calls_per_round' : 'llm.max_calls_per_turn';
  const more = dropped > 0 ? `; ${dropped} more call(s) of this round were dropped unread` : '';
  const message = errorMessage('too_many_calls', { cap, per, setting, more });
  return refusedReport(call, call.tool, 'too_many_calls', message);
}

/**
 * Records one call in the conversation: the one way every path (a local intent, the react
 * loop, plan-first, a decided or stopped confirmation) turns a report into a tool turn.
 */
export function appendCallRecord(
  conversations: Conversations,
  session: SessionRef,
  report: ToolCallReport,
  callId?: string,
): void {
  conversations.appendTool(session, recordOf(report, callId));
}

/**
 * The conversation record of one call: its report, the model's call id, and the label of
 * what it returned (a refusal the brain made itself is local, trusted content). A refusal's
 * reason is kept as the record's error when the report has no error of its own (a policy
 * denial, a rate limit), so the planner reads why on the next round.
 */
export function recordOf(report: ToolCallReport, callId?: string): ToolTurnRecord {
  const label = labelOfReport(report);
  return {
    name: report.tool,
    decision_id: report.decision_id,
    ...(callId === undefined ? {} : { call_id: callId }),
    outcome: report.outcome,
    input: report.input,
    ...(report.result !== undefined ? { result: report.result } : {}),
    ...(report.error !== undefined ? { error: report.error } : {}),
    ...(report.reason !== undefined && report.error === undefined
      ? { error: { code: report.outcome, message: report.reason } }
      : {}),
    label,
  };
}

/**
 * What a call's report is as content: the label the gateway gave a worker's answer; local,
 * trusted content when the brain answered without a worker (a refusal, a cap, a held call).
 */
export function labelOfReport(report: ToolCallReport): ContentLabel {
  return report.label ?? LOCAL_LABEL;
}

/**
 * Every tool result in a history, as a planner read it: with its stored label, or for a
 * record stored before labels, the label its tool's spec gives now (unknown: untrusted and
 * private, the most cautious).
 */
export function readItemsOf(history: readonly ConversationTurn[], specOf: SpecOf): ReadItem[] {
  const out: ReadItem[] = [];
  for (const turn of history) {
    const record = turn.tool;
    if (turn.role !== 'tool' || record === undefined) continue;
    const label = record.label ?? legacyLabel(record, specOf);
    out.push({
      tool: record.name,
      decisionId: record.decision_id,
      label,
      texts: () => textsOf([record.result, record.error]),
    });
  }
  return out;
}

function legacyLabel(record: ToolTurnRecord, specOf: SpecOf): ContentLabel {
  const spec = specOf(record.name);
  return spec === null ? UNKNOWN_LABEL : labelOf(spec, record.result ?? record.error);
}
