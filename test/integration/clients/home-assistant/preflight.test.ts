import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import type { ToolDefinition } from '../../../../src/legion/index.js';
import { createCallServiceTool } from '../../../../workers/call_service/index.js';
import { createHaEntitiesTool } from '../../../../workers/ha_entities/index.js';
import { HaConfigSchema } from '../../../../src/clients/home-assistant/config.js';
import { FAKE_HA_TOKEN, startFakeHomeAssistant } from '../../../helpers/fake-home-assistant.js';
import { sendJson, startFakeServer } from '../../../helpers/http-server.js';
import { closedPort } from '../../../helpers/ports.js';
import { AREAS, DEVICES, HOME } from './fixtures.js';
import { haConfig, startTool } from './harness.js';

type HaTool = ToolDefinition<z.ZodType, z.ZodType, typeof HaConfigSchema>;
const TOOLS: [string, () => HaTool][] = [
  ['call_service', () => createCallServiceTool()],
  ['ha_entities', () => createHaEntitiesTool()],
];

const names = (checks: { name: string; ok: boolean }[] | undefined) =>
  (checks ?? []).map((c) => `${c.name}:${c.ok ? 'ok' : 'FAIL'}`);

describe.each(TOOLS)('%s preflight', (tool, create) => {
  test("configured and reachable: every check passes, the answer is Home Assistant's", async () => {
    await using ha = await startFakeHomeAssistant({
      entities: HOME,
      areas: AREAS,
      devices: DEVICES,
    });
    await using t = await startTool(create(), haConfig(ha));
    const r = await t.preflight();
    expect(r.ok).toBe(true);
    const base = ['connect:ok', 'auth:ok', 'endpoint:ok', 'api:ok'];
    expect(names(r.checks)).toEqual(tool === 'ha_entities' ? [...base, 'registry:ok'] : base);
    if (tool === 'ha_entities') {
      expect(r.checks?.at(-1)?.detail).toBe('9 entities, 3 areas, 2 devices');
      expect(r.warnings).toEqual([]);
    }
    expect(ha.seen('GET', '/api/')[0]?.headers.authorization).toBe(`Bearer ${FAKE_HA_TOKEN}`);
  });

  test('unconfigured: the configured check names the keys to set', async () => {
    await using t = await startTool(create(), HaConfigSchema.parse({ timeout_seconds: '5' }));
    expect(await t.preflight()).toEqual({
      ok: false,
      checks: [
        {
          name: 'configured',
          ok: false,
          detail: 'set CAESAR_HA__URL (ha.url) and CAESAR_HA__TOKEN (ha.token)',
        },
      ],
    });
  });

  test('unreachable: the connect check fails', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    await using t = await startTool(create(), haConfig({ url }));
    const r = await t.preflight();
    expect(r.ok).toBe(false);
    expect(names(r.checks)).toEqual(['dns:ok', 'connect:FAIL']);
  });

  test('a wrong token: the auth check fails naming CAESAR_HA__TOKEN, not the token', async () => {
    await using ha = await startFakeHomeAssistant();
    await using t = await startTool(create(), haConfig(ha, { token: 'not-the-token-42' }));
    const r = await t.preflight();
    expect(r.ok).toBe(false);
    expect(names(r.checks)).toEqual(['connect:ok', 'auth:FAIL']);
    expect(r.checks?.[1]?.detail).toContain('CAESAR_HA__TOKEN (ha.token)');
    expect(JSON.stringify(r)).not.toContain('not-the-token-42');
  });

  test('a server that is not Home Assistant: the api check fails', async () => {
    await using other = await startFakeServer((_req, res) => sendJson(res, 200, { status: 'ok' }));
    await using t = await startTool(create(), haConfig(other));
    const r = await t.preflight();
    expect(r.ok).toBe(false);
    expect(names(r.checks)).toEqual(['connect:ok', 'auth:ok', 'endpoint:ok', 'api:FAIL']);
    expect(r.checks?.at(-1)?.detail).toContain('CAESAR_HA__URL (ha.url)');
  });

  test('https with a self-signed certificate: tls fails unless verify_ssl is false', async () => {
    await using ha = await startFakeHomeAssistant({ tls: true, entities: HOME, areas: AREAS });
    await using strict = await startTool(create(), haConfig(ha));
    const refused = await strict.preflight();
    expect(refused.ok).toBe(false);
    expect(names(refused.checks)).toEqual(['dns:ok', 'connect:ok', 'tls:FAIL']);
    await using lax = await startTool(create(), haConfig(ha, { verify_ssl: false }));
    const r = await lax.preflight();
    expect(r.ok).toBe(true);
    expect(names(r.checks)).toContain('tls:ok');
    if (tool === 'ha_entities') expect(names(r.checks)).toContain('registry:ok'); // wss too
  });
});

describe('ha_entities preflight and the registries', () => {
  test('unreachable registries: still ready, with a warning that areas and aliases are off', async () => {
    await using ha = await startFakeHomeAssistant({ entities: HOME, registry: 'refuse' });
    await using t = await startTool(createHaEntitiesTool(), haConfig(ha));
    const r = await t.preflight();
    expect(r.ok).toBe(true);
    expect(names(r.checks)).toEqual(['connect:ok', 'auth:ok', 'endpoint:ok', 'api:ok']);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings?.[0]).toMatch(
      /^registry: areas and aliases are unavailable \(.+\); names and domains still work$/,
    );
  });
});
