import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidInputError } from '../../src/legion/index.js';
import {
  friendlyName,
  readState,
  suggestEntity,
  type HaConnection,
  type HaState,
} from '../../src/clients/home-assistant/index.js';
import type { CallOutcome } from './invoke.js';
import { MAX_VERIFIED_ENTITIES } from './schema.js';
import { expectedState, type Observed } from './summary.js';
import type { PreparedCall } from './targets.js';

/** How long to wait for devices that report their new state after the call returns. */
export interface SettleOptions {
  /** The settle window, from the call's answer; also bounded by the call's deadline. */
  readonly settleMs: number;
  /** Pause between re-reads of the entities that have not changed yet. */
  readonly pollMs: number;
}

/** @default a 1 s window, re-reading every 150 ms. */
export const DEFAULT_SETTLE: SettleOptions = Object.freeze({ settleMs: 1000, pollMs: 150 });

/** Kept back from the deadline so the answer leaves before the deadline passes. */
const DEADLINE_RESERVE_MS = 250;

/** What the call can use of the time it has. */
interface CallClock {
  readonly signal: AbortSignal;
  /** Epoch ms. */
  readonly deadline: number;
}

/**
 * The targeted entities' states before the call (the first MAX_VERIFIED_ENTITIES).
 * @throws InvalidInputError naming entities Home Assistant does not have (nothing has been
 * called yet), with the nearest existing id.
 */
export async function readBefore(
  conn: HaConnection,
  call: PreparedCall,
  clock: CallClock,
): Promise<Map<string, HaState>> {
  const ids = call.entityIds.slice(0, MAX_VERIFIED_ENTITIES);
  const states = await Promise.all(
    ids.map((id) => readState(conn.client, id, { signal: clock.signal })),
  );
  const unknown = ids.filter((_, i) => states[i] === null);
  if (unknown.length > 0) throw await unknownEntities(conn, unknown, clock.signal);
  return new Map(ids.map((id, i) => [id, states[i] as HaState]));
}

async function unknownEntities(
  conn: HaConnection,
  ids: string[],
  signal: AbortSignal,
): Promise<InvalidInputError> {
  let known: string[] = [];
  try {
    known = (await conn.states.get(signal)).states.map((s) => s.entity_id);
  } catch {
    // suggestions are a courtesy; the refusal stands without them
  }
  const named = ids.map((id) => {
    const near = suggestEntity(id, known);
    return near === undefined ? id : `${id} (did you mean ${near}?)`;
  });
  return new InvalidInputError(
    `Home Assistant has no entity ${named.join(', ')}; look entities up by name with ha_entities`,
    { details: ids.map((id) => ({ path: 'target.entity_id', message: `no entity ${id}` })) },
  );
}

/**
 * The targets after the call: from Home Assistant's changed-states list, else re-read. An
 * entity that has not changed yet is re-read every `pollMs` within the settle window
 * (devices often report after the call returns), unless it is already in the state the
 * service leaves it in. Reads that fail leave `after` null; they never fail the call, which
 * has run by now.
 */
export async function observeAfter(
  conn: HaConnection,
  call: PreparedCall,
  before: ReadonlyMap<string, HaState>,
  outcome: CallOutcome,
  clock: CallClock,
  settle: SettleOptions,
): Promise<{ observed: Observed[]; allRead: boolean }> {
  const reported = new Map(outcome.changed.map((s) => [s.entity_id, s]));
  const after = new Map<string, HaState | null>();
  const read = (id: string) => tryRead(conn, id, clock);
  await Promise.all(
    [...before.keys()].map(async (id) => after.set(id, reported.get(id) ?? (await read(id)))),
  );
  const expected = (id: string) =>
    expectedState(call.domain, call.service, id, before.get(id)?.state ?? null);
  const waiting = () =>
    [...before]
      .filter(([id, b]) => isWaiting(b, after.get(id) ?? null, expected(id)))
      .map(([id]) => id);
  const until = Math.min(Date.now() + settle.settleMs, clock.deadline - DEADLINE_RESERVE_MS);
  for (let ids = waiting(); ids.length > 0; ids = waiting()) {
    const left = until - Date.now();
    if (left <= 0) break;
    await sleep(Math.min(settle.pollMs, left), undefined, { signal: clock.signal });
    await Promise.all(
      ids.map(async (id) => {
        const s = await read(id);
        if (s !== null) after.set(id, s);
      }),
    );
  }
  const observed = [...before].map(([id, b]) =>
    outcomeOf(id, b, after.get(id) ?? null, reported.has(id), expected(id)),
  );
  return { observed, allRead: observed.every((o) => o.after !== null) };
}

/** Still worth re-reading: unread, or unchanged and not yet where the service leaves it. */
function isWaiting(before: HaState, after: HaState | null, expected: string | undefined): boolean {
  if (after === null) return true;
  if (after.state !== before.state) return false;
  if (expected !== undefined) return before.state !== expected;
  return after.last_updated === before.last_updated;
}

function outcomeOf(
  id: string,
  before: HaState,
  after: HaState | null,
  reported: boolean,
  expected: string | undefined,
): Observed {
  const name = friendlyName(after ?? before);
  const changed =
    after !== null &&
    (reported || after.state !== before.state || after.last_updated !== before.last_updated);
  return {
    entity_id: id,
    ...(name === undefined ? {} : { name }),
    before: before.state,
    after: after?.state ?? null,
    changed,
    expected,
  };
}

/** The states Home Assistant reported for a call whose targets were not read (areas, ...). */
export function reportedOnly(outcome: CallOutcome): Observed[] {
  return outcome.changed.slice(0, MAX_VERIFIED_ENTITIES).map((s) => {
    const name = friendlyName(s);
    return {
      entity_id: s.entity_id,
      ...(name === undefined ? {} : { name }),
      before: null,
      after: s.state,
      changed: true,
    };
  });
}

/** One read within what is left of the call; null when it fails or there is no time. */
async function tryRead(conn: HaConnection, id: string, clock: CallClock): Promise<HaState | null> {
  const left = clock.deadline - Date.now() - DEADLINE_RESERVE_MS;
  if (left <= 0) return null;
  try {
    return await readState(conn.client, id, {
      signal: clock.signal,
      timeoutMs: Math.min(conn.target.timeoutMs, left),
    });
  } catch (err) {
    if (clock.signal.aborted) throw err;
    return null;
  }
}
