import { z } from 'zod';
import { BackendError } from '../../legion/index.js';
import { TtlCache } from './cache.js';
import type { HaTarget } from './config.js';
import { HaWebSocket, type WsResult } from './websocket.js';

/** One area: its id, name and aliases. */
export interface AreaInfo {
  readonly id: string;
  readonly name: string;
  readonly aliases: readonly string[];
}

/** What the registries add to the states: each entity's area and aliases. */
export interface Registry {
  readonly areas: ReadonlyMap<string, AreaInfo>;
  /** The entity's area: its own, else its device's. */
  areaOf(entityId: string): AreaInfo | undefined;
  aliasesOf(entityId: string): readonly string[];
  /** False when this Home Assistant could not give aliases (an old version). */
  readonly aliasesAvailable: boolean;
  readonly counts: { readonly entities: number; readonly devices: number; readonly areas: number };
}

/** Entity ids per `config/entity_registry/get_entries` request. */
const ALIAS_BATCH = 500;
const MAX_REGISTRY_ENTRIES = 20_000;
const MAX_ALIASES = 10;

const IdOrNull = z.string().max(255).nullish().catch(null);
const Aliases = z
  .array(z.unknown())
  .catch([])
  .transform((a) =>
    a
      .filter((x): x is string => typeof x === 'string' && x.trim() !== '')
      .slice(0, MAX_ALIASES)
      .map((x) => x.slice(0, 200)),
  );
const EntityEntry = z.object({
  entity_id: z.string().max(255),
  area_id: IdOrNull,
  device_id: IdOrNull,
  aliases: Aliases.optional(),
});
const DeviceEntry = z.object({ id: z.string().max(255), area_id: IdOrNull });
const AreaEntry = z.object({
  area_id: z.string().max(255),
  name: z.string().max(200),
  aliases: Aliases.optional(),
});

/** The valid entries of a registry list, bounded. */
function entries<T>(result: WsResult, schema: z.ZodType<T>, what: string): T[] {
  if (!result.success) {
    throw new BackendError(`${what} failed: ${result.code}: ${result.message}`, {
      retryable: result.code !== 'unauthorized',
    });
  }
  if (!Array.isArray(result.result)) {
    throw new BackendError(`${what} answered with something that is not a list`, {
      retryable: false,
    });
  }
  const out: T[] = [];
  for (const item of (result.result as unknown[]).slice(0, MAX_REGISTRY_ENTRIES)) {
    const parsed = schema.safeParse(item);
    if (parsed.success) out.push(parsed.data);
  }
  return out;
}

/**
 * Reads the entity, device and area registries over the WebSocket API, then the entities'
 * aliases (`config/entity_registry/get_entries`: the registry list omits them). None of
 * these commands needs an admin user. An area comes from the entity, else from its device.
 */
export async function fetchRegistry(target: HaTarget, timeoutMs: number): Promise<Registry> {
  const ws = await HaWebSocket.open(target, { timeoutMs });
  try {
    const [e, d, a] = await Promise.all([
      ws.command({ type: 'config/entity_registry/list' }),
      ws.command({ type: 'config/device_registry/list' }),
      ws.command({ type: 'config/area_registry/list' }),
    ]);
    const entityList = entries(e, EntityEntry, 'config/entity_registry/list');
    const deviceList = entries(d, DeviceEntry, 'config/device_registry/list');
    const areaList = entries(a, AreaEntry, 'config/area_registry/list');
    const aliases = await fetchAliases(
      ws,
      entityList.map((x) => x.entity_id),
    );
    for (const x of entityList) {
      if (x.aliases?.length && !aliases.map.has(x.entity_id))
        aliases.map.set(x.entity_id, x.aliases);
    }
    return buildRegistry(entityList, deviceList, areaList, aliases);
  } finally {
    ws.close();
  }
}

async function fetchAliases(
  ws: HaWebSocket,
  ids: string[],
): Promise<{ map: Map<string, readonly string[]>; available: boolean }> {
  const map = new Map<string, readonly string[]>();
  const batches: string[][] = [];
  for (let i = 0; i < ids.length; i += ALIAS_BATCH) batches.push(ids.slice(i, i + ALIAS_BATCH));
  const results = await Promise.all(
    batches.map((entity_ids) =>
      ws.command({ type: 'config/entity_registry/get_entries', entity_ids }),
    ),
  );
  let available = true;
  for (const r of results) {
    if (!r.success || typeof r.result !== 'object' || r.result === null) {
      available = false;
      continue;
    }
    for (const [id, entry] of Object.entries(r.result as Record<string, unknown>)) {
      const parsed = z.object({ aliases: Aliases }).safeParse(entry);
      if (parsed.success && parsed.data.aliases.length > 0) map.set(id, parsed.data.aliases);
    }
  }
  return { map, available };
}

function buildRegistry(
  entityList: z.output<typeof EntityEntry>[],
  deviceList: z.output<typeof DeviceEntry>[],
  areaList: z.output<typeof AreaEntry>[],
  aliases: { map: Map<string, readonly string[]>; available: boolean },
): Registry {
  const areas = new Map<string, AreaInfo>(
    areaList.map((x) => [x.area_id, { id: x.area_id, name: x.name, aliases: x.aliases ?? [] }]),
  );
  const deviceArea = new Map(deviceList.map((x) => [x.id, x.area_id ?? null]));
  const entityArea = new Map<string, string>();
  for (const x of entityList) {
    const area = x.area_id ?? (x.device_id ? deviceArea.get(x.device_id) : null);
    if (area) entityArea.set(x.entity_id, area);
  }
  return {
    areas,
    areaOf: (id) => {
      const area = entityArea.get(id);
      return area === undefined ? undefined : areas.get(area);
    },
    aliasesOf: (id) => aliases.map.get(id) ?? [],
    aliasesAvailable: aliases.available,
    counts: { entities: entityList.length, devices: deviceList.length, areas: areas.size },
  };
}

/**
 * The registries, cached (they change rarely) for a minute. A failure is remembered for a
 * while, so a Home Assistant whose WebSocket API is unreachable does not slow every lookup.
 */
export function createRegistryCache(
  target: HaTarget,
  options: { ttlMs?: number; failureTtlMs?: number; timeoutMs?: number; now?: () => number } = {},
): TtlCache<Registry> {
  const timeoutMs = options.timeoutMs ?? Math.min(target.timeoutMs, 5000);
  return new TtlCache(() => fetchRegistry(target, timeoutMs), {
    ttlMs: options.ttlMs ?? 60_000,
    failureTtlMs: options.failureTtlMs ?? 30_000,
    ...(options.now ? { now: options.now } : {}),
  });
}
