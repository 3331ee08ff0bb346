import type { ConfirmationTicket, PendingConfirmation } from './contract.js';
import { terminalLine } from '../../text/terminal-text.js';

/**
 * A call waiting for a human, in words (ADR 0068): who asked (a model in a turn opened by
 * token X, a local rule, the token itself), why it is held (the rule, each flow gate with the
 * policy line that set it) and what the model had read (tool, trust, sources, the excerpt
 * with the injected text visible). The terminal (`caesar confirm`, `chat`, `invoke`) and an
 * MCP client's confirmation prompt (ADR 0094) say it with the same lines. Every line holds
 * text from outside and is escaped on its own.
 */

/** What a ticket or a pending entry says about a held call; all of it optional. */
export type HeldCall = Pick<
  ConfirmationTicket,
  'asked_by' | 'gated_by' | 'read' | 'preflight_warnings' | 'approvers'
> &
  Partial<Pick<PendingConfirmation, 'requested_by' | 'rule' | 'rule_at' | 'reason'>>;

/** Who asked, in words: "a model, in a turn opened by token `kids-tablet` (session s-1)". */
export function askedByText(held: HeldCall): string {
  const a = held.asked_by;
  if (a === undefined) return `token \`${held.requested_by ?? '?'}\``;
  const who = whoText(a.actor, a.principal);
  if (a.kind === 'api') return `${who} directly`;
  if (a.kind === 'intent') {
    return `the local rule \`${a.intent ?? '?'}\`, on a message of ${who}`;
  }
  const session = a.session_id === undefined ? '' : ` (session ${a.session_id})`;
  return `a model, in a turn opened by ${who}${session}`;
}

/**
 * A token as a confirmation names it (ADR 0096): "token `ops`", or, when its principal is
 * another name, "principal `kids_tablet` (token `kids-tablet`)".
 */
function whoText(actor: string, principal: string | undefined): string {
  if (principal === undefined || principal === actor) return `token \`${actor}\``;
  return `principal \`${principal}\` (token \`${actor}\`)`;
}

/** Who may decide a held call whose rule names approvers: "group parents or principal mum". */
export function approversText(approvers: NonNullable<HeldCall['approvers']>): string {
  return [
    ...approvers.principals.map((p) => `principal ${p}`),
    ...approvers.groups.map((g) => `group ${g}`),
  ].join(' or ');
}

/** The account of a held call: who asked, what held it, what the model had read. */
export function heldCallLines(held: HeldCall): string[] {
  const lines: string[] = [];
  if (held.asked_by !== undefined || held.requested_by !== undefined) {
    lines.push(`asked by: ${askedByText(held)}`);
  }
  if (held.rule !== undefined) {
    const at = held.rule_at === undefined ? '' : ` (${held.rule_at})`;
    lines.push(`held by: rule ${held.rule}${at}: ${held.reason ?? ''}`);
  }
  for (const g of held.gated_by ?? []) {
    lines.push(`held by: flow gate ${g.gate} (${g.action}), set by ${g.set_by}`);
  }
  for (const w of held.preflight_warnings ?? []) lines.push(`held by: the tool's preflight: ${w}`);
  if (held.approvers !== undefined) {
    lines.push(`decided by: ${approversText(held.approvers)} only (the rule's approvers)`);
  }
  if (held.asked_by?.kind === 'model') lines.push(...readLines(held.read ?? []));
  return lines.map(terminalLine);
}

function readLines(read: NonNullable<HeldCall['read']>): string[] {
  if (read.length === 0) return ['the model had read: nothing untrusted or private'];
  const lines = ['the model had read:'];
  for (const r of read) {
    const what = [r.trust === 'untrusted' ? 'untrusted' : '', r.private ? 'private' : '']
      .filter((w) => w !== '')
      .join(', ');
    const from = r.sources.length === 0 ? '' : ` from ${r.sources.join(', ')}`;
    lines.push(`  ${r.tool} (${what || 'trusted'})${from}`);
    if (r.excerpt !== '') lines.push(`    "${r.excerpt}"`);
  }
  return lines;
}
