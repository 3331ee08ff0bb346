import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SHIPPED_INTENTS_FILE } from '../../../src/config/shipped.js';
import {
  FAKE_HA_TOKEN,
  startFakeHomeAssistant,
  type FakeHomeAssistant,
} from '../../helpers/fake-home-assistant.js';
import { runCli, startCli, type RunningCli } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import { commandOf, section } from '../../helpers/replies.js';

// Issue 15, scope 1: the offline list names only what is discovered, allowed and ready right
// now, and gives the step that enables each of the rest; the steps it names work as written.
// Issue 29, point 4: the chat reply to "what can you do" is short (one brief step each); the
// steps in full are `caesar chat /help setup`'s (GET /v1/capabilities), as docs/intents.md
// shows them.

const POLICY = (services: string, tools: string) => `version: 1
allowed_services:${services}
allowed_tools:
  - tool: calculator
  - tool: web_search
  - tool: ha_entities${tools}
`;

/** A rule for a tool nothing serves (and that no build ships). */
const WEATHER_RULE = `
  - name: weather
    description: tell the weather
    example: weather in Paris
    tool: weather
    sentences:
      - 'weather in {place}'
    slots:
      place: { type: text }
    input:
      place: '{place}'
    reply: '{result.summary}'
`;

describe('what can you do, on a caesar up stack where only the calculator works', () => {
  let dir: string;
  let varDir: string;
  let policyFile: string;
  let ha: FakeHomeAssistant | undefined;
  let up: RunningCli | undefined;
  const started: RunningCli[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caesar-replies-'));
    varDir = join(dir, 'var');
    policyFile = join(dir, 'policy.yaml');
    await writeFile(policyFile, POLICY(' []', ''));
    const intents = join(dir, 'intents.yaml');
    await copyFile(SHIPPED_INTENTS_FILE, intents);
    await writeFile(intents, `${await readFile(intents, 'utf8')}${WEATHER_RULE}`);
    ha = await startFakeHomeAssistant({
      entities: [
        { entity_id: 'light.kitchen', state: 'off', attributes: { friendly_name: 'Kitchen' } },
      ],
    });
    await writeFile(join(dir, 'ha-token'), `${FAKE_HA_TOKEN}\n`, { mode: 0o600 });
    up = startCli(
      [
        'up',
        '--tools',
        'calculator,calendar_read,call_service,ha_entities',
        '--nats-port',
        '0',
        '--api-port',
        '0',
        '--data-dir',
        varDir,
      ],
      {
        CAESAR_LOG__LEVEL: 'warn',
        CAESAR_POLICY__FILE: policyFile,
        CAESAR_BRAIN__INTENTS_FILE: intents,
        CAESAR_HA__URL: ha.url,
        CAESAR_HA__TOKEN_FILE: join(dir, 'ha-token'),
      },
    );
    await up.waitForLine(/^ready: /, 60_000);
  }, 90_000);

  afterAll(async () => {
    for (const p of started) {
      p.child.kill('SIGKILL');
      await p.exited;
    }
    if (up && up.child.exitCode === null) {
      up.child.kill('SIGINT');
      await up.exited;
    }
    await ha?.close();
    await rm(dir, { recursive: true, force: true });
  }, 30_000);

  const ask = async (message = 'what can you do') => {
    const r = await runCli(['chat', message, '--data-dir', varDir]);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
  };
  const setup = () => ask('/help setup');

  test('"what can you do" is a short list: what works, one brief step for each of the others', async () => {
    const reply = await ask();
    expect(section(reply, 'Without a language model, I can:')).toEqual([
      "- tell the time and date (e.g. 'what time is it')",
      "- do arithmetic and unit conversions (e.g. 'what is 17 * 23')",
    ]);
    expect(section(reply, 'Could work after one step:')).toEqual([
      '- read your calendar: allow calendar_read in the policy',
      '- search the web: start the web_search tool',
      '- switch lights, switches and fans on and off: allow call_service in the policy',
      '- dim lights: allow call_service in the policy',
      '- tell the weather: start the weather tool',
      '- answer anything else: add a language model (llm.provider and llm.model)',
    ]);
    expect(reply).toContain('`/help setup` in `caesar chat`, or the Tools panel on the dashboard');
    expect(reply).not.toMatch(/CAESAR_|serve-tool|policy\.yaml/);
  }, 30_000);

  test('/help setup lists only arithmetic as working, and says how to enable each of the others', async () => {
    const reply = await setup();
    expect(section(reply, 'Working now:')).toEqual([
      "- tell the time and date (e.g. 'what time is it')",
      "- do arithmetic and unit conversions (e.g. 'what is 17 * 23')",
    ]);
    const missing = section(reply, 'Not available yet:').join('\n');
    // not started: the exact command that joins this stack
    expect(missing).toContain(
      "- search the web (e.g. 'search for the ISS orbit height'): web_search is not running; " +
        `start it: \`caesar legion serve-tool web_search --data-dir ${varDir}\``,
    );
    // not granted: the policy file and the rule to add
    expect(missing).toContain(
      "- switch lights, switches and fans on and off (e.g. 'turn on the kitchen light'): " +
        'call_service is not granted; grant it: add the Home Assistant services it may call ' +
        `under \`allowed_services:\` in ${policyFile}, such as \`- service: light.turn_on\` ` +
        'and `- service: light.turn_off`',
    );
    // not granted and not configured: both steps, each with its file, key and env var
    expect(missing).toContain(
      "- read your calendar (e.g. 'what's on my calendar today'):\n" +
        `  - calendar_read is not granted; grant it: add \`- tool: calendar_read\` under \`allowed_tools:\` in ${policyFile}\n` +
        '  - calendar_read is not configured; set CAESAR_TOOLS__CALENDAR__CALDAV_URL ' +
        '(tools.calendar.caldav_url), then restart `caesar up`',
    );
    expect(reply).toMatch(
      /set `llm\.provider` \(openai, anthropic or ollama\) and `llm\.model` in caesar\.yaml, or CAESAR_LLM__PROVIDER and CAESAR_LLM__MODEL, then restart `caesar up`/,
    );
  }, 30_000);

  test('an intent rule whose tool nothing serves is not advertised, and no serve-tool command is made up for it', async () => {
    const reply = await setup();
    expect(section(reply, 'Working now:').join('\n')).not.toContain('weather');
    expect(section(reply, 'Not available yet:').join('\n')).toContain(
      "- tell the weather (e.g. 'weather in Paris'):\n" +
        '  - weather is not running; start the worker that serves weather (it is not a shipped ' +
        'tool; docs/legion.md)\n' +
        `  - weather is not granted; grant it: add \`- tool: weather\` under \`allowed_tools:\` in ${policyFile}`,
    );
    expect(reply).not.toContain('serve-tool weather');
  }, 30_000);

  test("a rule's call that finds no worker names the command that starts it for this stack", async () => {
    expect(await ask('search for nats jetstream')).toBe(
      'web_search failed: no live instance of web_search: start it: ' +
        `\`caesar legion serve-tool web_search --data-dir ${varDir}\``,
    );
  }, 30_000);

  test("a rule's refused call also gets the steps it does not state, so none is learned one failure at a time", async () => {
    const calendar = await ask("what's on my calendar today");
    expect(calendar).toMatch(/^I'm not allowed to use calendar_read: /);
    expect(calendar).toContain(
      '\nAlso: calendar_read is not configured; set CAESAR_TOOLS__CALENDAR__CALDAV_URL ' +
        '(tools.calendar.caldav_url), then restart `caesar up`',
    );
    const weather = await ask('weather in Paris');
    expect(weather).toContain(
      '\nAlso: weather is not running; start the worker that serves weather (it is not a ' +
        'shipped tool; docs/legion.md)',
    );
    expect(weather).not.toContain('serve-tool weather');
  }, 30_000);

  test('the start command it names joins the stack, and the reply then names the key to set', async () => {
    const { args, env } = commandOf(await setup(), 'search the web');
    started.push(startCli(args, env));
    const after = await waitFor(
      async () => {
        const line = section(await setup(), 'Not available yet:').find((l) =>
          l.startsWith('- search the web'),
        );
        return line?.includes('is not running') === false ? line : undefined;
      },
      'web_search to join the stack',
      30_000,
      500,
    );
    expect(after).toContain(
      'web_search is not configured; set CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL (tools.web_search.searxng_url)',
    );
    expect(after).toContain('then restart `caesar up`');
  }, 60_000);

  test('the grants it names, added to the policy file, make the lights work', async () => {
    await writeFile(
      policyFile,
      POLICY(
        '\n  - service: light.turn_on\n  - service: light.turn_off',
        '\n  - tool: calendar_read',
      ),
    );
    const ready = await waitFor(
      async () => {
        const list = section(await setup(), 'Working now:');
        return list.some((l) => l.startsWith('- switch lights')) ? list : undefined;
      },
      'the lights to be listed once granted',
      30_000,
      500,
    );
    expect(ready).toContain("- dim lights (e.g. 'set the kitchen light to 40%')");
    const calendar = section(await setup(), 'Not available yet:').find((l) =>
      l.startsWith('- read your calendar'),
    );
    expect(calendar).toMatch(/: calendar_read is not configured; set CAESAR_TOOLS__CALENDAR__/);
    expect(await ask('turn on the kitchen light')).toBe('Done: Kitchen is on.');
  }, 60_000);
});
