import { InvalidArgumentError, type Command } from 'commander';
// the files, not the modules' index.js: the flags are declared without loading the audit
// log's schemas or the YAML reader (ADR 0047)
import {
  AUDIT_EVENT_TYPES,
  AUDIT_OUTCOMES,
  isAuditEventType,
  isAuditOutcome,
  type AuditEventType,
  type AuditOutcome,
} from '../../../audit/event-names.js';
import type { AuditFilter } from '../../../audit/index.js';
import { durationHint, parseDuration } from '../../../text/duration.js';
import type { DbOptions } from './flags.js';

/** The row filters `tail`, `query` and `export` share, as flags and as an `AuditFilter`. */
export interface FilterOptions extends DbOptions {
  type?: string[];
  tool?: string;
  decision?: string;
  session?: string;
  outcome?: AuditOutcome;
  actor?: string;
  principal?: string;
  since?: string;
  until?: string;
  json?: boolean;
}

/** How far back `--since 400d` may reach: an audit log keeps years. */
const MAX_AGO_MS = 100 * 365 * 86_400_000;

/**
 * `--since`/`--until`: an ISO-8601 time, or a duration ago in the one duration grammar
 * (`15m`, `2h`, `7d`, `2 hours`; docs/configuration.md, "Durations").
 */
export function parseTime(text: string, now: Date = new Date()): string {
  const ago = parseDuration(text, { max: MAX_AGO_MS });
  if (ago !== undefined) return new Date(now.getTime() - ago).toISOString();
  const t = /^\d+$/.test(text.trim()) ? NaN : Date.parse(text);
  if (Number.isNaN(t)) {
    throw new InvalidArgumentError(`expected an ISO-8601 time or ${durationHint()} (how long ago)`);
  }
  return new Date(t).toISOString();
}

export function toFilter(o: FilterOptions): AuditFilter {
  return {
    ...(o.type?.length ? { types: o.type as AuditEventType[] } : {}),
    ...(o.tool !== undefined ? { tool: o.tool } : {}),
    ...(o.decision !== undefined ? { decisionId: o.decision } : {}),
    ...(o.session !== undefined ? { sessionId: o.session } : {}),
    ...(o.outcome !== undefined ? { outcome: o.outcome } : {}),
    ...(o.actor !== undefined ? { actor: o.actor } : {}),
    ...(o.principal !== undefined ? { principal: o.principal } : {}),
    ...(o.since !== undefined ? { since: o.since } : {}),
    ...(o.until !== undefined ? { until: o.until } : {}),
  };
}

/** Adds the filter flags to a subcommand. */
export function withFilters(cmd: Command): Command {
  return cmd
    .option('--type <type>', 'event type (repeatable)', eventType)
    .option('--tool <tool>', 'tool id')
    .option('--decision <id>', 'decision id')
    .option('--session <id>', 'session id')
    .option('--outcome <outcome>', AUDIT_OUTCOMES.join(' | '), outcome)
    .option('--actor <actor>', 'who asked (token name, cli, trigger)')
    .option('--principal <name>', "whose call it was (the token's principal, ADR 0096)")
    .option('--since <time>', 'ISO-8601 time or duration ago (15m, 2h, 7d)', (t) => parseTime(t))
    .option('--until <time>', 'ISO-8601 time or duration ago', (t) => parseTime(t));
}

function eventType(text: string, previous: string[] = []): string[] {
  if (!isAuditEventType(text)) {
    throw new InvalidArgumentError(`expected one of ${AUDIT_EVENT_TYPES.join(', ')}`);
  }
  return [...previous, text];
}

function outcome(text: string): AuditOutcome {
  if (!isAuditOutcome(text)) {
    throw new InvalidArgumentError(`expected one of ${AUDIT_OUTCOMES.join(', ')}`);
  }
  return text;
}
