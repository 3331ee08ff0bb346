import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadConfig, toolConfigSections } from '../../../src/config/index.js';
import { webSearchTool } from '../../../workers/web_search/index.js';
import {
  DEFAULTS,
  TOOL_TIMEOUT_MS,
  WebSearchConfigSchema,
  type WebSearchSettings,
} from '../../../workers/web_search/config.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-web-search-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The section as the real loader hands it to the worker, from env vars alone. */
async function fromEnv(env: Record<string, string>): Promise<WebSearchSettings> {
  const config = await loadConfig({ env, cwd: dir });
  return WebSearchConfigSchema.parse(toolConfigSections(config).web_search ?? {});
}

function issues(section: unknown): string[] {
  const r = WebSearchConfigSchema.safeParse(section);
  if (r.success) throw new Error('expected the section to be refused');
  return r.error.issues.map((i) => `${i.path.join('.') || '(section)'}: ${i.message}`);
}

describe('web_search config', () => {
  test('the tool reads this schema from tools.web_search', () => {
    expect(webSearchTool.config).toBe(WebSearchConfigSchema);
    expect(webSearchTool.configSection).toBe('web_search');
  });

  test('env values (strings) are read as numbers and lists', async () => {
    const s = await fromEnv({
      CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL: 'http://searx.lan:8080',
      CAESAR_TOOLS__WEB_SEARCH__BRAVE_API_KEY: 'BSA-env-key',
      CAESAR_TOOLS__WEB_SEARCH__RESULT_LIMIT: '7',
      CAESAR_TOOLS__WEB_SEARCH__MAX_RESULT_LIMIT: ' 20 ',
      CAESAR_TOOLS__WEB_SEARCH__TIMEOUT_SECONDS: '2.5',
      CAESAR_TOOLS__WEB_SEARCH__BACKENDS: 'brave, searxng',
    });
    expect(s.resultLimit).toBe(7);
    expect(s.maxResultLimit).toBe(20);
    expect(s.timeoutMs).toBe(2500);
    expect(s.backends.map((b) => b.name)).toEqual(['brave', 'searxng']);
    expect(s.backends[0]).toMatchObject({ name: 'brave', url: DEFAULTS.brave_url });
  });

  test('a key can come from a file (CAESAR_TOOLS__WEB_SEARCH__TAVILY_API_KEY_FILE)', async () => {
    const file = join(dir, 'tavily_key');
    await writeFile(file, 'tvly-from-file\n', { mode: 0o600 });
    const s = await fromEnv({ CAESAR_TOOLS__WEB_SEARCH__TAVILY_API_KEY_FILE: file });
    const [tavily] = s.backends;
    expect(tavily?.name).toBe('tavily');
    expect(tavily && 'apiKey' in tavily ? tavily.apiKey.reveal() : '').toBe('tvly-from-file');
  });

  test('defaults: nothing configured, 5 results, at most 25, 10 s', () => {
    expect(WebSearchConfigSchema.parse({})).toEqual({
      backends: [],
      resultLimit: 5,
      maxResultLimit: 25,
      timeoutMs: 10_000,
      secrets: [],
    });
  });

  test('without `backends`, the configured ones are tried in the order searxng, brave, tavily', () => {
    const s = WebSearchConfigSchema.parse({
      tavily_api_key: 'tvly-key-0001',
      brave_api_key: 'BSA-key-0002',
      searxng_url: 'https://searx.example/',
    });
    expect(s.backends.map((b) => b.name)).toEqual(['searxng', 'brave', 'tavily']);
  });

  test('a YAML list works for `backends`; blank values mean unset', () => {
    const s = WebSearchConfigSchema.parse({
      searxng_url: 'http://127.0.0.1:8888',
      tavily_api_key: '   ',
      result_limit: '',
      backends: ['searxng'],
    });
    expect(s.backends.map((b) => b.name)).toEqual(['searxng']);
    expect(s.resultLimit).toBe(5);
  });

  test.each([
    [{ searxng_url: 'ftp://files.lan' }, 'searxng_url: expected an http(s) URL'],
    [{ searxng_url: 'searx.lan:8080' }, 'searxng_url: expected an http(s) URL'],
    [{ searxng_url: 'http://me:pw@searx.lan' }, 'searxng_url: put no user:password in the URL'],
    [
      { brave_url: 'https://api.search.brave.com/?x=1' },
      'brave_url: expected a base URL without ?query',
    ],
    [{ result_limit: '0' }, 'result_limit: expected a whole number from 1 to 100'],
    [{ result_limit: '2.5' }, 'result_limit: expected a whole number from 1 to 100'],
    [{ max_result_limit: '101' }, 'max_result_limit: expected a whole number from 1 to 100'],
    [
      { result_limit: 30, max_result_limit: 10 },
      'result_limit: result_limit 30 is above max_result_limit 10',
    ],
    [
      { timeout_seconds: '31' },
      `timeout_seconds: expected seconds from 0.1 to ${TOOL_TIMEOUT_MS / 1000}`,
    ],
    [{ timeout_seconds: 'soon' }, 'timeout_seconds: expected seconds from 0.1 to 30'],
    [{ searxng_url: 'http://s', backends: 'searxng,bing' }, 'backends.1: Invalid option'],
    [{ searxng_url: 'http://s', backends: 'searxng,searxng' }, 'backends: names a backend twice'],
    [{ searxng_url: 'http://s', backends: ' , ' }, 'backends: name at least one backend'],
    [
      { searxng_url: 'http://s', backends: 'searxng,tavily' },
      'backends: names tavily, which is not configured: set CAESAR_TOOLS__WEB_SEARCH__TAVILY_API_KEY (tools.web_search.tavily_api_key)',
    ],
    [{ brave_api_key: 'short' }, 'brave_api_key: too short for an API key'],
    [
      { api_key: 'x' },
      "(section): unknown key 'api_key'; web_search takes searxng_url, brave_api_key",
    ],
  ])('%j is refused: %s', (section, message) => {
    expect(issues(section).join('\n')).toContain(message);
  });

  test('keys never show when the settings are printed, logged or serialised', () => {
    const s = WebSearchConfigSchema.parse({
      brave_api_key: 'BSA-secret-1',
      tavily_api_key: 'tvly-secret-2',
    });
    for (const shown of [
      JSON.stringify(s),
      inspect(s, { depth: 10 }),
      String(s.secrets[0]),
      `${s.secrets[1]!.toString()}`,
      [s.secrets[1]].join(''),
    ]) {
      expect(shown).not.toMatch(/BSA-secret-1|tvly-secret-2/);
    }
    expect(s.secrets.map((k) => k.reveal())).toEqual(['BSA-secret-1', 'tvly-secret-2']);
  });

  test('the settings are frozen', () => {
    const s = WebSearchConfigSchema.parse({ searxng_url: 'http://s' });
    expect(Object.isFrozen(s)).toBe(true);
    expect(Object.isFrozen(s.backends)).toBe(true);
    expect(Object.isFrozen(s.backends[0])).toBe(true);
  });
});
