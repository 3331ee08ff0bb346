import { describe, expect, test } from 'vitest';
import { haEntitiesTool } from '../../../../workers/ha_entities/index.js';
import { suggestEntity, suggestService } from '../../../../src/clients/home-assistant/index.js';
import { HaConfigSchema, missingSettings } from '../../../../src/clients/home-assistant/config.js';
import { parseCatalogue } from '../../../../src/clients/home-assistant/services.js';
import { TtlCache, untilAborted } from '../../../../src/clients/home-assistant/cache.js';
import { websocketUrl } from '../../../../src/clients/home-assistant/websocket.js';

const CATALOGUE = parseCatalogue([
  {
    domain: 'light',
    services: { turn_on: { fields: { brightness_pct: {} } }, turn_off: {}, toggle: {} },
  },
  { domain: 'weather', services: { get_forecasts: { response: { optional: false } } } },
  { domain: 'conversation', services: { process: { response: { optional: true } } } },
  { domain: 'legacy', services: ['reload'] },
]);

describe('the ha_entities spec', () => {
  test('is read-only and reads the ha section', () => {
    expect(haEntitiesTool.spec).toMatchObject({
      name: 'ha_entities',
      tags: ['tool', 'home', 'home_assistant', 'network'],
      annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
      input_schema: { additionalProperties: false },
    });
    expect(haEntitiesTool.configSection).toBe('ha');
  });
});

describe('service catalogue', () => {
  test('reads response modes and fields; old name lists too', () => {
    expect(CATALOGUE.get('light', 'turn_on')).toEqual({
      domain: 'light',
      service: 'turn_on',
      response: 'none',
      fields: ['brightness_pct'],
    });
    expect(CATALOGUE.get('weather', 'get_forecasts')?.response).toBe('only');
    expect(CATALOGUE.get('conversation', 'process')?.response).toBe('optional');
    expect(CATALOGUE.get('legacy', 'reload')?.response).toBe('none');
    expect(CATALOGUE.get('light', 'nope')).toBeUndefined();
  });

  test('another shape is a non-retryable backend_error', () => {
    expect(() => parseCatalogue({ light: [] })).toThrow(/unexpected shape/);
  });
});

describe('suggestions', () => {
  test.each([
    ['light', 'turn_onn', 'did you mean light.turn_on?', 'light.turn_on'],
    ['light', 'switch_off', 'did you mean light.turn_off?', 'light.turn_off'],
    ['ligth', 'toggle', 'did you mean light.toggle?', 'light.toggle'],
    ['light', 'dance', 'light has: toggle, turn_off, turn_on', undefined],
    ['vacuum', 'start', '(there is no domain vacuum)', undefined],
  ])('%s.%s -> %s', (domain, service, text, suggestion) => {
    const s = suggestService(domain, service, CATALOGUE);
    expect(s.message).toBe(
      `Home Assistant has no service ${domain}.${service}${text.startsWith('(') ? ' ' : '; '}${text}`,
    );
    expect(s.suggestion).toBe(suggestion);
  });

  test('entity suggestions stay in the domain: by spelling, else by containment', () => {
    const known = ['light.kitchen', 'switch.kitchn', 'light.living_room'];
    expect(suggestEntity('light.kitchn', known)).toBe('light.kitchen');
    expect(suggestEntity('light.kitchen_light', known)).toBe('light.kitchen');
    expect(suggestEntity('light.garage', known)).toBeUndefined();
  });
});

describe('config', () => {
  test('strings from the environment are coerced; empty means unset', () => {
    const c = HaConfigSchema.parse({
      url: 'http://ha.local:8123',
      token: ' ',
      timeout_seconds: '3',
      verify_ssl: 'false',
    });
    expect(c).toEqual({
      url: 'http://ha.local:8123',
      token: undefined,
      timeout_seconds: 3,
      verify_ssl: false,
    });
    expect(missingSettings(c)).toEqual(['CAESAR_HA__TOKEN (ha.token)']);
    expect(HaConfigSchema.parse({})).toEqual({ timeout_seconds: 10, verify_ssl: true });
  });

  test.each([
    [{ url: 'ftp://ha' }],
    [{ url: 'http://user:pw@ha' }],
    [{ timeout_seconds: '0' }],
    [{ verify_ssl: 'maybe' }],
    [{ tokn: 'x' }],
  ])('%j is refused', (section) => {
    expect(HaConfigSchema.safeParse(section).success).toBe(false);
  });

  test('the WebSocket URL keeps the host, port and base path', () => {
    expect(websocketUrl('http://ha:8123').href).toBe('ws://ha:8123/api/websocket');
    expect(websocketUrl('https://proxy.example/ha/').href).toBe(
      'wss://proxy.example/ha/api/websocket',
    );
  });
});

describe('TtlCache', () => {
  test('serves the value for its TTL, shares one load, then loads again', async () => {
    let now = 0;
    let loads = 0;
    let release: () => void = () => undefined;
    const cache = new TtlCache(
      async () => {
        loads += 1;
        await new Promise<void>((r) => (release = r));
        return loads;
      },
      { ttlMs: 100, now: () => now },
    );
    const a = cache.get();
    const b = cache.get();
    release();
    expect(await Promise.all([a, b])).toEqual([1, 1]);
    now = 99;
    expect(await cache.get()).toBe(1);
    now = 100;
    const c = cache.get();
    release();
    expect(await c).toBe(2);
  });

  test('remembers a failure for failureTtlMs', async () => {
    let now = 0;
    let loads = 0;
    const cache = new TtlCache(
      () => {
        loads += 1;
        return Promise.reject(new Error(`down ${loads}`));
      },
      { ttlMs: 100, failureTtlMs: 50, now: () => now },
    );
    await expect(cache.get()).rejects.toThrow('down 1');
    now = 49;
    await expect(cache.get()).rejects.toThrow('down 1');
    now = 50;
    await expect(cache.get()).rejects.toThrow('down 2');
  });

  test("a caller's abort stops its wait, not the shared load", async () => {
    let release: (v: string) => void = () => undefined;
    const cache = new TtlCache(() => new Promise<string>((r) => (release = r)), { ttlMs: 1000 });
    const controller = new AbortController();
    const impatient = cache.get(controller.signal);
    const patient = cache.get();
    controller.abort(new Error('deadline'));
    await expect(impatient).rejects.toThrow('deadline');
    release('v');
    expect(await patient).toBe('v');
    await expect(
      untilAborted(Promise.resolve(1), AbortSignal.abort(new Error('gone'))),
    ).rejects.toThrow('gone');
  });
});
