import { parseSupervisorMessage, type SupervisorMessage } from './messages.js';

/** What a child does with what its supervisor tells it. */
export interface SupervisorInbox {
  /** A message that parsed. */
  message(message: SupervisorMessage): void;
  /** A message that did not; `problem` names each field at fault. */
  malformed(problem: string): void;
}

/**
 * Hears what `caesar up` tells this child over the IPC channel (parent to child, ADR 0070):
 * every message is parsed with the one schema both sides use (`messages.ts`). Outside
 * `caesar up` (no channel) it does nothing.
 *
 * A `message` listener holds the channel, and so the process, open: call the returned
 * function when stopping, before `leaveSupervisor()` closes the channel.
 * @returns stops listening
 */
export function hearSupervisor(inbox: SupervisorInbox): () => void {
  if (process.send === undefined || !process.connected) return () => {};
  const onMessage = (raw: unknown) => {
    const parsed = parseSupervisorMessage(raw);
    if (parsed.ok) inbox.message(parsed.message);
    else inbox.malformed(parsed.problem);
  };
  process.on('message', onMessage);
  return () => process.off('message', onMessage);
}
