import { InvalidArgumentError, type Command } from 'commander';
import {
  AUDIT_EVENT_TYPES,
  AUDIT_OUTCOMES,
  isAuditEventType,
  type AuditEventType,
  type AuditFilter,
  type AuditOutcome,
} from '../../../audit/index.js';
import type { DbOptions } from './log.js';

/** The row filters `tail`, `query` and `export` share, as flags and as an `AuditFilter`. */
export interface FilterOptions extends DbOptions {
  type?: string[];
  tool?: string;
  decision?: string;
  session?: string;
  outcome?: AuditOutcome;
  actor?: string;
  since?: string;
  until?: string;
  json?: boolean;
}

const DURATION = /^(\d+)(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--since`/`--until`: an ISO-8601 time, or a duration ago such as `15m`, `2h`, `7d`. */
export function parseTime(text: string, now: Date = new Date()): string {
  const rel = DURATION.exec(text);
  if (rel) {
    const ms = Number(rel[1]) * UNIT_MS[rel[2] as keyof typeof UNIT_MS];
    return new Date(now.getTime() - ms).toISOString();
  }
  const t = Date.parse(text);
  if (Number.isNaN(t)) {
    throw new InvalidArgumentError('expected an ISO-8601 time or a duration like 15m, 2h, 7d');
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
  if (!(AUDIT_OUTCOMES as readonly string[]).includes(text)) {
    throw new InvalidArgumentError(`expected one of ${AUDIT_OUTCOMES.join(', ')}`);
  }
  return text as AuditOutcome;
}
