import { describePreflight } from '../../brain/preflight/index.js';
import { parseRecord, prettyLine, prettyText } from '../../log/pretty.js';
import { printedOnItsOwn } from './own-lines.js';
import type { BrainMailbox } from './brain-mailbox.js';
import { BRAIN } from './children.js';
import type { ChildMessage, WorkerPreflight } from './messages.js';
import type { PreflightBoard } from './preflight.js';
import type { RuntimeRecord } from './runtime-record.js';
import type { ReadyMessage, StartupGate } from './startup.js';
import { statusLine, type Say } from './status.js';
import { splitCallable } from '../../protocol/index.js';
import type { RestartInfo, SupervisorEvents } from './supervisor.js';

/** What `caesar up` does with what its children say and do. */
interface ChildEventTargets {
  say: Say;
  /** Where the children's own log lines go (stderr, prefixed with the child's name). */
  log: (line: string) => void;
  /**
   * How they show there: `pretty`, each JSON record as one readable line (the children
   * always write JSON); `json`, as written.
   */
  logFormat: 'pretty' | 'json';
  gate: StartupGate;
  preflight: PreflightBoard;
  record: RuntimeRecord;
  pidOf: (name: string) => number | undefined;
  /** Restarts go to the brain, for its audit log. */
  mailbox: BrainMailbox;
}

/**
 * The supervisor's events for `caesar up`: a ready child is announced and counted, the
 * brain's URL kept in runtime.json, a worker's preflight kept for the start's summary (and
 * printed when a restarted worker reports it later); a child that cannot start, or sends a
 * malformed message, stops the start (once the stack is up, it is reported).
 */
export function childEvents(t: ChildEventTargets): SupervisorEvents {
  return {
    onMessage: (name, message) => onMessage(t, name, message),
    onMalformed: (name, problem) => malformed(t, name, problem),
    onRestart: (name, restart) => restarted(t, name, restart),
    onKill: (name, pid, why) => t.say(statusLine(name, `pid ${pid} ${why}: killing it (SIGKILL)`)),
    onOutput: (name, line) => relay(t, name, line),
  };
}

/**
 * A child's output line on `caesar up`'s stderr: readable on a terminal, by the formatter of
 * a hand-run part (ADR 0076); a record of an event the child prints readable itself (a
 * refused policy edit) is left to that line, so each event shows once, never as JSON first.
 */
function relay(t: ChildEventTargets, name: string, line: string): void {
  if (t.logFormat === 'json') return t.log(`[${name}] ${line}`);
  const record = parseRecord(line);
  if (record === undefined) return t.log(`[${name}] ${prettyText(line)}`);
  if (printedOnItsOwn(record)) return;
  t.log(`[${name}] ${prettyLine(record)}`);
}

/** Says a child ended and when it starts again, and tells the brain for its audit log. */
function restarted(t: ChildEventTargets, name: string, r: RestartInfo): void {
  if (name === BRAIN) t.mailbox.close();
  t.say(statusLine(name, `${r.detail} [${r.reason}]; restart ${r.count}, in ${r.delayMs} ms`));
  t.mailbox.post({
    type: 'child_restarted',
    name,
    kind: name === BRAIN ? 'brain' : 'worker',
    reason: r.reason,
    detail: r.detail.slice(0, 300),
    count: r.count,
    ...(r.pid === undefined ? {} : { pid: r.pid }),
    exit: { code: r.exit.code, signal: r.exit.signal },
    at: r.at.toISOString(),
    delay_ms: r.delayMs,
  });
}

function onMessage(t: ChildEventTargets, name: string, message: ChildMessage): void {
  if (message.type === 'fatal') return fatal(t, name, message.message);
  if (message.type === 'worker_preflight') return preflight(t, name, message);
  const expected = name === BRAIN ? 'brain_ready' : 'worker_ready';
  if (message.type !== expected) {
    return malformed(t, name, `type: expected ${expected}, got ${message.type}`);
  }
  t.say(readyLine(name, message, t.pidOf(name)));
  if (message.type === 'brain_ready') {
    t.record.brainAt(message.url);
    t.mailbox.open();
  }
  t.gate.ready(name, message);
}

/** A worker reports for the tool it serves (its name under `caesar up`), and for no other. */
function preflight(t: ChildEventTargets, name: string, message: WorkerPreflight): void {
  // a tool with actions reports for each of them (ADR 0092)
  const other = message.replies.find((r) => splitCallable(r.tool).tool !== name);
  if (name === BRAIN || other !== undefined) {
    const what = other === undefined ? 'a preflight' : `tool ${other.tool}`;
    return malformed(t, name, `type: worker_preflight: ${name} cannot report for ${what}`);
  }
  const replies = t.preflight.report(message.replies);
  if (t.gate.starting) return;
  for (const r of replies) {
    t.say(statusLine('preflight', describePreflight(r.tool, { reply: r, at: Date.now() })));
  }
}

function fatal(t: ChildEventTargets, name: string, message: string): void {
  failure(t, name, `could not start: ${message}`, `failed: ${message}`);
}

function malformed(t: ChildEventTargets, name: string, problem: string): void {
  const what = `sent a malformed message, refused (${problem})`;
  failure(t, name, what, what);
}

/** Before the stack is up a failure stops the start; after, it is a status line. */
function failure(t: ChildEventTargets, name: string, starting: string, later: string): void {
  if (t.gate.starting) t.gate.fail(new Error(`${name} ${starting}`));
  else t.say(statusLine(name, later));
}

function readyLine(name: string, message: ReadyMessage, pid: number | undefined): string {
  if (message.type === 'brain_ready') {
    return statusLine(name, `${message.url}  (pid ${pid}, audit ${message.audit_db})`);
  }
  const ids = message.instances.map((i) => i.id).join(',');
  return statusLine(name, `serving  (pid ${pid}, instance ${ids})`);
}
