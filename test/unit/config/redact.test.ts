import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { redactConfig } from '../../../src/config/redact.js';
import { REDACTED } from '../../../src/text/index.js';
import { tempDir } from './temp-dir.js';

describe('redactConfig', () => {
  test('hides the bus token everywhere it appears and keeps the rest', async () => {
    await using dir = await tempDir();
    const config = await loadConfig({ env: { CAESAR_BUS__TOKEN: 'hunter2-token' }, cwd: dir.path });
    const safe = redactConfig(config);
    expect(safe.bus.token).toBe(REDACTED);
    expect(safe.busOptions.auth).toEqual({ kind: 'token', token: REDACTED });
    expect(JSON.stringify(safe)).not.toContain('hunter2-token');
    expect({ ...safe, bus: config.bus, busOptions: config.busOptions }).toEqual(config);
    expect(config.bus.token).toBe('hunter2-token');
    expect(Object.isFrozen(safe)).toBe(true);
  });

  test('hides credentials in tool sections and URLs, keeps secret file paths', async () => {
    await using dir = await tempDir();
    const config = await loadConfig({
      env: {
        CAESAR_BUS__URL: 'nats://user:pw@a:4222,nats://b:4222',
        CAESAR_BUS__CREDS_FILE: '/etc/caesar/w.creds',
      },
      cwd: dir.path,
      overrides: {
        tools: {
          web_search: {
            brave_api_key: 'SECRET-k1',
            tavily_apiKey: 'SECRET-k2',
            searxng_url: 'http://s:8080',
          },
          call_service: { ha_url: 'http://ha:8123', access_token: 'SECRET-t1' },
          calendar_read: {
            caldav_url: 'https://me:calpw@dav.example/cal',
            auth: { password: 'SECRET-p1', username: 'me' },
            client_secret: 'SECRET-s1',
          },
        },
      },
    });
    const safe = redactConfig(config);
    expect(safe.bus.servers).toEqual(['nats://[redacted]@a:4222', 'nats://b:4222']);
    expect(safe.bus.credsFile).toBe('/etc/caesar/w.creds');
    expect(safe.tools).toEqual({
      web_search: {
        brave_api_key: REDACTED,
        tavily_apiKey: REDACTED,
        searxng_url: 'http://s:8080',
      },
      call_service: { ha_url: 'http://ha:8123', access_token: REDACTED },
      calendar_read: {
        caldav_url: 'https://[redacted]@dav.example/cal',
        auth: { password: REDACTED, username: 'me' },
        client_secret: REDACTED,
      },
    });
    // secrets are spelled so that no random temp-dir name can contain them by chance
    expect(JSON.stringify(safe)).not.toMatch(/SECRET-|calpw|:pw@/);
  });
});
