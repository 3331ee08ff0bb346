import { z } from 'zod';
import { BackendError } from '../../legion/index.js';
import { TtlCache } from './cache.js';
import { HA_NAME, parseJson, statusError, type HaClient } from './client.js';

/** Entities read from `GET /api/states` at most; a larger home is cut here (and says so). */
const MAX_ENTITIES = 20_000;

/** A Home Assistant state object, as the REST API returns it. */
const HaStateSchema = z
  .object({
    entity_id: z.string().min(1).max(255),
    state: z.string().max(255),
    attributes: z.record(z.string(), z.unknown()).catch({}),
    last_changed: z.string().optional(),
    last_updated: z.string().optional(),
  })
  .loose();
export type HaState = z.output<typeof HaStateSchema>;

/** The entity's `friendly_name`, if it has a usable one. */
export function friendlyName(state: HaState): string | undefined {
  const name = state.attributes.friendly_name;
  return typeof name === 'string' && name.trim() !== '' ? name.trim().slice(0, 200) : undefined;
}

/** The state objects in a list, skipping any that are malformed. */
export function parseStateList(json: unknown, what: string): HaState[] {
  if (!Array.isArray(json)) {
    throw new BackendError(`${HA_NAME} answered ${what} with something that is not a list`, {
      retryable: false,
    });
  }
  const out: HaState[] = [];
  for (const item of json as unknown[]) {
    const s = HaStateSchema.safeParse(item);
    if (s.success) out.push(s.data);
  }
  return out;
}

/**
 * `GET /api/states/<entity_id>`: the entity's state, or null when Home Assistant has no
 * such entity (404).
 */
export async function readState(
  client: HaClient,
  entityId: string,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<HaState | null> {
  const what = `GET /api/states/${entityId}`;
  const reply = await client.request({
    path: `api/states/${encodeURIComponent(entityId)}`,
    ...options,
  });
  if (reply.status === 404) return null;
  if (reply.status !== 200) throw statusError(reply, what);
  const s = HaStateSchema.safeParse(parseJson(reply, what));
  if (!s.success) {
    throw new BackendError(`${HA_NAME} answered ${what} with an unexpected shape`, {
      retryable: false,
    });
  }
  return s.data;
}

/** Every entity's state at one moment. */
export interface StatesSnapshot {
  readonly states: readonly HaState[];
  /** More entities than MAX_ENTITIES: the rest were dropped. */
  readonly truncated: boolean;
}

/** `GET /api/states`, cached for a short while (entity lookups come in bursts). */
export function createStatesCache(
  client: HaClient,
  options: { ttlMs?: number; now?: () => number } = {},
): TtlCache<StatesSnapshot> {
  return new TtlCache(
    async () => {
      const all = parseStateList(await client.getJson('api/states'), 'GET /api/states');
      return { states: all.slice(0, MAX_ENTITIES), truncated: all.length > MAX_ENTITIES };
    },
    { ttlMs: options.ttlMs ?? 10_000, ...(options.now ? { now: options.now } : {}) },
  );
}
