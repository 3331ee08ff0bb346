import { action, BackendError, defineTool, type ToolContext } from '../../src/legion/index.js';
import {
  haToolParts,
  HaSessions,
  type HaConfig,
  type HaConnection,
  type HaSessionOptions,
  type Registry,
  type StatesSnapshot,
} from '../../src/clients/home-assistant/index.js';
import { resolveArea } from './areas.js';
import { buildCandidates, type Candidate } from './candidates.js';
import { findEntities, type Matched } from './match.js';
import {
  HaEntitiesInputSchema,
  HaEntitiesResultSchema,
  type HaEntitiesInput,
  type HaEntitiesResult,
  type Match,
} from './schema.js';

/** What a model reads of the lookup; `caller` is the callable the ids are for. */
const description = (caller: string) =>
  [
    'Looks up Home Assistant entities by name, alias, area and domain (read-only), so you can turn',
    `"the kitchen light" into an entity id like light.kitchen before calling ${caller}.`,
    'Input: query (a name as said: "kitchen light", "bedroom lamp"), domain (like "light"), area (like "Kitchen"),',
    'limit (default 10, at most 100); all optional: no query lists the entities that pass the filters.',
    'Example: {"query": "kitchen", "domain": "light"}.',
    'Returns matches (entity_id, name, domain, area, aliases, state, and how it matched: exact, alias, partial,',
    'listed), resolved (the one entity meant, when one stands out) and ambiguous (several match and none stands',
    'out: ask the user which one, naming the matches). Use resolved.entity_id; never guess ids.',
  ].join(' ');

/**
 * The lookup as an action over `sessions`: the `ha_entities` tool's, and the `home_assistant`
 * tool's `entities` action (ADR 0093). `caller` names the service call beside it.
 */
export function entitiesAction(sessions: HaSessions, caller: string) {
  const memo = new WeakMap<StatesSnapshot, { registry: Registry | undefined; list: Candidate[] }>();
  const candidatesOf = (snapshot: StatesSnapshot, registry: Registry | undefined) => {
    const hit = memo.get(snapshot);
    if (hit !== undefined && hit.registry === registry) return hit.list;
    const list = buildCandidates(snapshot.states, registry);
    memo.set(snapshot, { registry, list });
    return list;
  };
  return action({
    description: description(caller),
    capabilities: ['find_entities', 'read_device_states'],
    input: HaEntitiesInputSchema,
    output: HaEntitiesResultSchema,
    annotations: { readOnly: true, openWorld: true },
    timeoutMs: 10_000,
    handler: async (input: HaEntitiesInput, ctx: ToolContext<HaConfig>) => {
      const conn = sessions.get(ctx.config).require();
      const [snapshot, registry] = await Promise.all([
        conn.states.get(ctx.signal),
        readRegistry(conn, ctx.signal),
      ]);
      const list = candidatesOf(snapshot, registry.value);
      return answer(list, input, registry, snapshot.truncated);
    },
  });
}

/**
 * Builds an `ha_entities` tool (kept for one release beside `home_assistant.entities`,
 * ADR 0093); the options exist for tests (cache lifetimes).
 */
export function createHaEntitiesTool(options: HaSessionOptions = {}) {
  const sessions = new HaSessions(options);
  return defineTool({
    ...entitiesAction(sessions, 'call_service'),
    name: 'ha_entities',
    version: '1.0.0',
    title: 'Home Assistant entities',
    ...haToolParts(sessions, { registry: true }),
    resourceRequirements: { cpu: 'low', memory_mb: 128, network: true },
    maxConcurrency: 8,
    maxQueue: 64,
  });
}

/** The registries, or why they could not be read (a lookup then works on names and ids). */
async function readRegistry(
  conn: HaConnection,
  signal: AbortSignal,
): Promise<{ value: Registry | undefined; why?: string }> {
  try {
    return { value: await conn.registry.get(signal) };
  } catch (err) {
    if (signal.aborted) throw err;
    return { value: undefined, why: err instanceof Error ? err.message : String(err) };
  }
}

function answer(
  list: readonly Candidate[],
  input: HaEntitiesInput,
  registry: { value: Registry | undefined; why?: string },
  truncated: boolean,
): HaEntitiesResult {
  let areaIds: ReadonlySet<string> | undefined;
  if (input.area !== undefined) {
    if (registry.value === undefined) {
      throw new BackendError(
        `cannot filter by area: Home Assistant's registries are unavailable (${registry.why ?? 'unknown'})`,
      );
    }
    areaIds = resolveArea(input.area, registry.value);
  }
  const found = findEntities(list, { query: input.query, domain: input.domain, areaIds });
  const warnings: string[] = [];
  if (registry.value === undefined) {
    warnings.push(
      `areas and aliases are unavailable (${registry.why ?? 'unknown'}); matched by names and ids only`,
    );
  } else if (!registry.value.aliasesAvailable) {
    warnings.push('aliases are unavailable (this Home Assistant does not offer them)');
  }
  if (truncated)
    warnings.push('Home Assistant has more entities than are searched; some were left out');
  return {
    matches: found.matches.slice(0, input.limit).map(toMatch),
    resolved: found.resolved
      ? { entity_id: found.resolved.entityId, name: found.resolved.name }
      : null,
    ambiguous: found.ambiguous,
    total: found.matches.length,
    ...(warnings.length > 0 ? { warning: warnings.join('; ') } : {}),
  };
}

function toMatch(m: Matched): Match {
  const c = m.candidate;
  return {
    entity_id: c.entityId,
    name: c.name,
    domain: c.domain,
    ...(c.area ? { area: c.area.name } : {}),
    ...(c.aliases.length > 0 ? { aliases: [...c.aliases] } : {}),
    state: c.state,
    match: m.kind,
  };
}

/** The shipped `ha_entities` tool (`caesar legion serve-tool ha_entities`). */
export const haEntitiesTool = createHaEntitiesTool();
