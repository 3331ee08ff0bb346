import { describe, expect, test } from 'vitest';
import { loadConfigWithSources, redactSettings } from '../../../src/config/index.js';
import { REDACTED } from '../../../src/text/index.js';
import { tempDir } from './temp-dir.js';

describe('redactSettings (what caesar config show prints)', () => {
  test('hides the bus token and keeps the rest', async () => {
    await using dir = await tempDir();
    const { settings } = await loadConfigWithSources({
      env: { CAESAR_BUS__TOKEN: 'hunter2-token' },
      cwd: dir.path,
    });
    const safe = redactSettings(settings);
    expect(safe.get('bus.token')).toEqual({ ...settings.get('bus.token'), value: REDACTED });
    expect(JSON.stringify([...safe.values()])).not.toContain('hunter2-token');
    for (const [path, setting] of safe) {
      if (path !== 'bus.token') expect(setting).toEqual(settings.get(path));
    }
    expect(settings.get('bus.token')?.value).toBe('hunter2-token');
    expect(Object.isFrozen(safe.get('bus.token'))).toBe(true);
  });

  test('hides credentials in tool sections and URLs, keeps secret file paths', async () => {
    await using dir = await tempDir();
    const { settings } = await loadConfigWithSources({
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
    const safe = redactSettings(settings);
    const value = (path: string): unknown => safe.get(path)?.value;
    expect(value('bus.url')).toEqual(['nats://[redacted]@a:4222', 'nats://b:4222']);
    expect(value('bus.creds_file')).toBe('/etc/caesar/w.creds');
    expect(value('tools.web_search.brave_api_key')).toBe(REDACTED);
    expect(value('tools.web_search.tavily_apiKey')).toBe(REDACTED);
    expect(value('tools.web_search.searxng_url')).toBe('http://s:8080');
    expect(value('tools.call_service.ha_url')).toBe('http://ha:8123');
    expect(value('tools.call_service.access_token')).toBe(REDACTED);
    expect(value('tools.calendar_read.caldav_url')).toBe('https://[redacted]@dav.example/cal');
    expect(value('tools.calendar_read.client_secret')).toBe(REDACTED);
    // secrets are spelled so that no random temp-dir name can contain them by chance
    expect(JSON.stringify([...safe.values()])).not.toMatch(/SECRET-|calpw|:pw@/);
  });
});
