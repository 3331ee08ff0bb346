import type { AuditStats } from './reader.js';
import type { AuditRecord } from './record.js';
import type { VerifyReport } from './verify.js';

/** Plain-text renderings for people (the CLI); machines get JSON lines instead. */

const PAYLOAD_PREVIEW = 240;

/** One record on one line: seq, time, type, outcome, tool, who, ids, payload preview. */
export function formatRecord(r: AuditRecord): string {
  const fields = [
    `#${r.seq}`,
    r.ts,
    r.type,
    r.outcome,
    r.tool ?? '-',
    `actor=${r.actor}`,
    ...(r.principal !== null && r.principal !== r.actor ? [`principal=${r.principal}`] : []),
    ...(r.decisionId ? [`decision=${r.decisionId}`] : []),
    ...(r.sessionId ? [`session=${r.sessionId}`] : []),
  ];
  const payload = JSON.stringify(r.payload);
  const preview =
    payload.length > PAYLOAD_PREVIEW ? `${payload.slice(0, PAYLOAD_PREVIEW)}…` : payload;
  return `${fields.join('  ')}  ${preview}`;
}

/** `ok: N rows verified (seq A..B), head H` or `TAMPERED at seq S: reason: detail`. */
export function formatVerifyReport(report: VerifyReport): string {
  if (!report.ok) {
    return (
      `TAMPERED at seq ${report.badSeq}: ${report.reason}: ${report.detail} ` +
      `(${report.rows} rows verified before it)`
    );
  }
  if (report.rows === 0) return 'ok: the log is empty';
  const anchor = report.anchor === 'retention' ? ', anchored by audit.retention' : '';
  return (
    `ok: ${report.rows} rows verified (seq ${report.firstSeq}..${report.lastSeq}${anchor}), ` +
    `head ${report.lastSeq}:${report.headHash} (keep it elsewhere; --expect-head checks it later)`
  );
}

function formatCounts(counts: Readonly<Record<string, number>>): string {
  const entries = Object.entries(counts);
  return entries.length ? entries.map(([k, n]) => `${k} ${n}`).join(', ') : '-';
}

/** The lines of `caesar audit stats`. */
export function formatStats(s: AuditStats): string[] {
  const mib = (s.fileBytes / 1_048_576).toFixed(1);
  return [
    `log         ${s.path} (schema v${s.schemaVersion}, ${mib} MiB)`,
    `rows        ${s.rows}${s.firstSeq === null ? '' : ` (seq ${s.firstSeq}..${s.lastSeq})`}`,
    `span        ${s.firstTs ?? '-'} .. ${s.lastTs ?? '-'}`,
    `by type     ${formatCounts(s.counts.byType)}`,
    `by tool     ${formatCounts(s.counts.byTool)}`,
    `by outcome  ${formatCounts(s.counts.byOutcome)}`,
  ];
}
