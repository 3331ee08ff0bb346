import { describe, expect, test } from 'vitest';
import {
  ConfigError,
  loadConfig,
  loadConfigWithSources,
  redactSettings,
  toolConfigSections,
} from '../../../src/config/index.js';
import { tempDir } from './temp-dir.js';

/** Every value `caesar config show` prints, as one string. */
const shownValues = (settings: Parameters<typeof redactSettings>[0]): string =>
  JSON.stringify([...redactSettings(settings).values()].map((s) => s.value));

/**
 * Operators move over from the reference Python CAESAR with the same env file: its names for
 * the web search, calendar and Home Assistant settings must keep working unchanged.
 */
const REFERENCE_ENV = {
  CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL: 'http://searx.lan:8080',
  CAESAR_TOOLS__WEB_SEARCH__RESULT_LIMIT: '7',
  CAESAR_TOOLS__WEB_SEARCH__MAX_RESULT_LIMIT: '20',
  CAESAR_TOOLS__WEB_SEARCH__TIMEOUT_SECONDS: '4',
  CAESAR_TOOLS__WEB_SEARCH__BRAVE_API_KEY: 'brave-secret-1',
  CAESAR_TOOLS__WEB_SEARCH__TAVILY_API_KEY: 'tvly-secret-2',
  CAESAR_TOOLS__CALENDAR__CALDAV_URL: 'https://dav.lan/dav/',
  CAESAR_TOOLS__CALENDAR__USERNAME: 'alice',
  CAESAR_TOOLS__CALENDAR__PASSWORD: 'caldav-secret-3',
  CAESAR_TOOLS__CALENDAR__CALENDAR_NAMES: 'Family,Work',
  CAESAR_HA__URL: 'http://homeassistant.local:8123',
  CAESAR_HA__TOKEN: 'ha-secret-4',
  CAESAR_HA__TIMEOUT_SECONDS: '5',
  CAESAR_HA__VERIFY_SSL: 'false',
};

describe("the reference project's env names", () => {
  test('reach the sections the tools read, as written', async () => {
    await using dir = await tempDir();
    const config = await loadConfig({ env: REFERENCE_ENV, cwd: dir.path });
    const sections = toolConfigSections(config);
    expect(sections.web_search).toEqual({
      searxng_url: 'http://searx.lan:8080',
      result_limit: '7',
      max_result_limit: '20',
      timeout_seconds: '4',
      brave_api_key: 'brave-secret-1',
      tavily_api_key: 'tvly-secret-2',
    });
    expect(sections.calendar).toEqual({
      caldav_url: 'https://dav.lan/dav/',
      username: 'alice',
      password: 'caldav-secret-3',
      calendar_names: 'Family,Work',
    });
    expect(sections.ha).toEqual({
      url: 'http://homeassistant.local:8123',
      token: 'ha-secret-4',
      timeout_seconds: 5,
      verify_ssl: false,
    });
  });

  test('Home Assistant has its defaults when nothing is set', async () => {
    await using dir = await tempDir();
    const config = await loadConfig({ env: {}, cwd: dir.path });
    expect(toolConfigSections(config).ha).toEqual({ timeout_seconds: 10, verify_ssl: true });
  });

  test('secrets come from *_FILE and are redacted when printed', async () => {
    await using dir = await tempDir();
    const token = await dir.write('ha_token', 'ha-file-secret\n');
    const password = await dir.write('caldav_pw', 'caldav-file-secret\n');
    const { config, settings } = await loadConfigWithSources({
      env: {
        CAESAR_HA__TOKEN_FILE: token,
        CAESAR_TOOLS__CALENDAR__PASSWORD_FILE: password,
        CAESAR_TOOLS__WEB_SEARCH__BRAVE_API_KEY_FILE: token,
      },
      cwd: dir.path,
    });
    expect(config.ha.token).toBe('ha-file-secret');
    expect(config.tools.calendar?.password).toBe('caldav-file-secret');
    expect(config.tools.web_search?.brave_api_key).toBe('ha-file-secret');
    const shown = shownValues(settings);
    expect(shown).not.toContain('file-secret');
  });

  test.each([
    ['CAESAR_HA__URL', 'homeassistant.local:8123', /ha\.url.*expected http/],
    ['CAESAR_HA__URL', 'http://user:pw@ha.lan', /credentials in the URL are refused/],
    ['CAESAR_HA__TIMEOUT_SECONDS', '2.5', /whole number/],
    ['CAESAR_HA__VERIFY_SSL', 'maybe', /true, false, 1 or 0/],
    ['CAESAR_HA__TOKN', 'x', /did you mean CAESAR_HA__TOKEN/],
  ])('%s=%s is refused naming the variable', async (name, value, message) => {
    await using dir = await tempDir();
    const err = await loadConfig({ env: { [name]: value }, cwd: dir.path }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toContain(name);
    expect((err as ConfigError).message).toMatch(message);
    expect((err as ConfigError).message).not.toContain('pw@');
  });

  test('tools.ha is refused: Home Assistant settings live at the top level', async () => {
    await using dir = await tempDir();
    const err = await loadConfig({
      env: { CAESAR_TOOLS__HA__URL: 'http://ha.lan' },
      cwd: dir.path,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/top-level `ha:` section/);
  });
});

describe("the reference project's LLM env names", () => {
  test('load unchanged and fill every endpoint', async () => {
    await using dir = await tempDir();
    const key = await dir.write('anthropic_key', 'sk-ant-file-secret\n');
    const { config, settings } = await loadConfigWithSources({
      env: {
        CAESAR_LLM__PROVIDER: 'openai',
        CAESAR_LLM__MODEL: 'gpt-4o-mini',
        CAESAR_LLM__SYSTEM_PROMPT: 'You run my house.',
        CAESAR_LLM__MAX_TOKENS: '512',
        CAESAR_LLM__OPENAI__API_KEY: 'sk-openai-secret',
        CAESAR_LLM__OPENAI__BASE_URL: 'http://llama.lan:8080/v1',
        CAESAR_LLM__ANTHROPIC__API_KEY_FILE: key,
        CAESAR_LLM__ANTHROPIC__MODEL: 'claude-haiku',
        CAESAR_LLM__OLLAMA__BASE_URL: 'http://ollama.lan:11434',
        CAESAR_LLM__OLLAMA__MODEL: 'llama3.1:8b',
        CAESAR_LLM__FALLBACK: 'anthropic, ollama',
        CAESAR_LLM__TEMPERATURE: '0.2',
        CAESAR_LLM__INCLUDE_TAGS: 'home,math',
      },
      cwd: dir.path,
    });
    expect(config.llm).toMatchObject({
      provider: 'openai',
      fallback: ['anthropic', 'ollama'],
      systemPrompt: 'You run my house.',
      includeTags: ['home', 'math'],
      endpoints: {
        openai: {
          baseUrl: 'http://llama.lan:8080/v1',
          apiKey: 'sk-openai-secret',
          model: 'gpt-4o-mini',
          maxTokens: 512,
          temperature: 0.2,
          timeoutMs: 60_000,
        },
        anthropic: { apiKey: 'sk-ant-file-secret', model: 'claude-haiku', maxTokens: 512 },
        ollama: { baseUrl: 'http://ollama.lan:11434', model: 'llama3.1:8b' },
      },
    });
    const shown = shownValues(settings);
    expect(shown).not.toContain('secret');
  });

  test.each([
    ['CAESAR_LLM__PROVIDER', 'gpt', /one of|expected one/i],
    ['CAESAR_LLM__TEMPERATURE', 'warm', /expected a number/],
    ['CAESAR_LLM__FALLBACK', 'openai,bard', /fallback/],
    ['CAESAR_LLM__MODE', 'plan', /react.*plan_first/],
  ])('%s=%s is refused naming the variable', async (name, value, message) => {
    await using dir = await tempDir();
    const err = await loadConfig({ env: { [name]: value }, cwd: dir.path }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toContain(name);
    expect((err as ConfigError).message).toMatch(message);
  });

  test('llm.mode is react unless set; plan_first runs the plan before any result is read', async () => {
    await using dir = await tempDir();
    expect((await loadConfig({ env: {}, cwd: dir.path })).llm.mode).toBe('react');
    const config = await loadConfig({ env: { CAESAR_LLM__MODE: 'plan_first' }, cwd: dir.path });
    expect(config.llm.mode).toBe('plan_first');
  });

  test('a fallback that is the primary is refused', async () => {
    await using dir = await tempDir();
    const err = await loadConfig({
      env: { CAESAR_LLM__PROVIDER: 'ollama', CAESAR_LLM__FALLBACK: 'ollama' },
      cwd: dir.path,
    }).catch((e: unknown) => e);
    expect((err as ConfigError).message).toMatch(/'ollama' is already the primary provider/);
  });
});
