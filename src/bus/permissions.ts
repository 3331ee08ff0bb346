import { PermissionViolationError, type NatsConnection } from '@nats-io/transport-node';
import { errorClass } from '../errors/index.js';

/**
 * NATS refused a subject this process needs: its identity's permissions do not allow it, so
 * the process must not say it is ready. The message names each refused subject and the
 * command whose permissions block fixes it.
 */
export const BusPermissionError = errorClass('bus_permission_denied');
export type BusPermissionError = InstanceType<typeof BusPermissionError>;

/** One refusal the server sent: what was refused, on which subject. */
export interface Refusal {
  readonly operation: 'publish' | 'subscription';
  readonly subject: string;
}

/**
 * Runs `work` and returns with every permission refusal the server reported on `nc` meanwhile
 * (the server's -ERR for a publish or a subscription, which the client reports as a status
 * event, or as the rejection of a request whose reply inbox it refused). `work` should end
 * with a flush, so the refusals of what it sent have arrived.
 */
export async function refusalsDuring(
  nc: NatsConnection,
  work: () => Promise<void>,
): Promise<Refusal[]> {
  const refusals: Refusal[] = [];
  const statuses = nc.status();
  const watching = (async () => {
    for await (const s of statuses) {
      if (s.type === 'error' && s.error instanceof PermissionViolationError) {
        refusals.push({ operation: s.error.operation, subject: s.error.subject });
      }
    }
  })().catch(() => undefined);
  try {
    await work();
  } catch (err) {
    // a request whose reply inbox was refused rejects with the refusal itself
    if (!(err instanceof PermissionViolationError)) throw err;
    refusals.push({ operation: err.operation, subject: err.subject });
    // `work` stopped before its own flush: this one lets the refusals of what it had already
    // sent arrive too, so the error names every refused subject, not the first one only
    await nc.flush().catch(() => undefined);
  } finally {
    (statuses as Partial<{ stop: () => void }>).stop?.();
    await watching;
  }
  return refusals;
}

/** `subscription to "x", publish to "y"`, each once. */
export function describeRefusals(refusals: readonly Refusal[]): string {
  const seen = new Set(
    refusals.map(
      (r) => `${r.operation === 'publish' ? 'publish' : 'subscription'} to "${r.subject}"`,
    ),
  );
  return [...seen].join(', ');
}
