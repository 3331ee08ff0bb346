import {
  notConfigured,
  PREFLIGHT_TIMEOUT_MS,
  probeHttp,
  readJsonValue,
  type PreflightResult,
} from '../../legion/index.js';
import { HA_NAME } from './client.js';
import { haSetting, whatToSet } from './config.js';
import { fetchRegistry } from './registry.js';
import type { HaSession } from './session.js';

type Check = NonNullable<PreflightResult['checks']>[number];

/** Home Assistant's answer to `GET /api/`. */
const API_RUNNING = 'API running.';

/**
 * Preflight of both Home Assistant tools. Unconfigured: the `configured` check naming the
 * keys to set. Configured: `probeHttp` on the authenticated `GET /api/` (checks `dns`,
 * `connect`, `tls` for https, `auth`, `endpoint`), then `api`: the answer is Home
 * Assistant's `{"message": "API running."}`. With `registry`, also reads the registries over
 * the WebSocket API: `registry` when they answer, else a warning (areas and aliases are then
 * unavailable; names and domains still work, so the tool stays ready).
 */
export async function haPreflight(
  session: HaSession,
  options: { registry?: boolean } = {},
): Promise<PreflightResult> {
  const conn = session.connection;
  if (conn === undefined) return notConfigured(whatToSet(session.missing));
  const probe = await probeHttp(conn.client.http, { path: 'api/' });
  const checks: Check[] = probe.checks.map((c) =>
    c.name === 'auth' && !c.ok
      ? {
          ...c,
          detail: `${c.detail ?? 'rejected'}; set a valid long-lived access token in ${haSetting('token')}`,
        }
      : c,
  );
  if (!probe.ok || probe.reply === undefined) return { ok: false, checks };
  if (!isApiRunning(probe.reply.text)) {
    checks.push({
      name: 'api',
      ok: false,
      detail: `${conn.client.origin} answered GET /api/, but not as ${HA_NAME} does ({"message": "${API_RUNNING}"}); is ${haSetting('url')} the address of Home Assistant?`,
    });
    return { ok: false, checks };
  }
  checks.push({
    name: 'api',
    ok: true,
    detail: `${HA_NAME} at ${conn.client.origin}: ${API_RUNNING}`,
  });
  if (!options.registry) return { ok: true, checks };
  const warnings: string[] = [];
  try {
    const r = await fetchRegistry(conn.target, PREFLIGHT_TIMEOUT_MS);
    const { entities, areas, devices } = r.counts;
    checks.push({
      name: 'registry',
      ok: true,
      detail: `${entities} entities, ${areas} areas, ${devices} devices`,
    });
    if (!r.aliasesAvailable) {
      warnings.push(
        'registry: entity aliases are unavailable (Home Assistant too old for config/entity_registry/get_entries)',
      );
    }
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    warnings.push(
      `registry: areas and aliases are unavailable (${why}); names and domains still work`,
    );
  }
  return { ok: true, checks, warnings };
}

function isApiRunning(text: string): boolean {
  const body = readJsonValue(text) as { message?: unknown } | null | undefined;
  return body?.message === API_RUNNING;
}
