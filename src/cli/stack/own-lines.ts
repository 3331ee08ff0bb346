import type { LogRecord } from '../../log/pretty.js';

/**
 * Log records of events `caesar brain` prints as a readable line of its own: the policy's
 * reloads (`policyLines` in brain.run.ts: file:line:col, the problem and the fix). On a
 * terminal that line is the event's one line, so the record is not shown as well, whether
 * the brain runs alone (its pretty log) or under `caesar up` (which shows its children's
 * records readable). JSON output keeps the record: a journal or a pipe wants it.
 */
export function printedOnItsOwn(record: LogRecord): boolean {
  return (
    record.component === 'policy' &&
    (record.type === 'policy.reload_failed' || record.type === 'policy.reloaded')
  );
}
