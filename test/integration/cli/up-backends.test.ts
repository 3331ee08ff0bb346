import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  FAKE_HA_TOKEN,
  startFakeHomeAssistant,
  type FakeHomeAssistant,
} from '../../helpers/fake-home-assistant.js';
import {
  startFakeSearxng,
  type FakeSearch,
  type FakeSearxngOptions,
} from '../../helpers/fake-search.js';
import { runCli, startCli, type RunningCli } from '../../helpers/cli.js';
import { startRadicale, type TestRadicale } from '../../helpers/radicale.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * The acceptance, as an operator runs it: `caesar up` with the backends configured by
 * the reference project's env vars only (a real Radicale, a loopback SearXNG and Home
 * Assistant), then `caesar chat` for the calendar, a search and a light, and a policy edit
 * that narrows the search to one domain while the stack runs.
 */
const DAY_MS = 86_400_000;

/** `20260302T090000Z` for a Monday four weeks ago at 09:00 UTC. */
function mondayWeeksAgo(weeks: number): string {
  const now = new Date();
  const monday = new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) -
      ((now.getUTCDay() + 6) % 7) * DAY_MS -
      weeks * 7 * DAY_MS,
  );
  return `${monday.toISOString().slice(0, 10).replaceAll('-', '')}T090000Z`;
}

const STANDUP = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//CAESAR tests//EN',
  'BEGIN:VEVENT',
  'UID:standup@caesar.test',
  `DTSTAMP:${mondayWeeksAgo(4)}`,
  `DTSTART:${mondayWeeksAgo(4)}`,
  'DURATION:PT15M',
  'RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR',
  'SUMMARY:Standup',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

const RESULTS = [
  { url: 'https://docs.nats.io/nats-concepts/jetstream', title: 'JetStream | NATS Docs' },
  { url: 'https://github.com/nats-io/nats-server', title: 'nats-server on GitHub' },
];

const policy = (searchRule: string) => `version: 1
allowed_services:
  - service: light.turn_on
    target:
      entity_id: [light.kitchen]
allowed_tools:
  - ha_entities
  - calendar_read
${searchRule}
`;

let dir: string;
let dav: TestRadicale;
let searx: FakeSearch<FakeSearxngOptions>;
let ha: FakeHomeAssistant;
let up: RunningCli | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-up-backends-'));
  dav = await startRadicale({ users: { alice: 'alice-pw' } });
  await dav.makeCalendar('alice', 'work', 'Work');
  await dav.putEvent('alice', 'work', 'standup', STANDUP);
  searx = await startFakeSearxng({ results: RESULTS });
  ha = await startFakeHomeAssistant({
    entities: [
      { entity_id: 'light.kitchen', state: 'off', attributes: { friendly_name: 'Kitchen' } },
    ],
  });
  await writeFile(join(dir, 'policy.yaml'), policy('  - web_search'));
  await writeFile(join(dir, 'ha-token'), `${FAKE_HA_TOKEN}\n`, { mode: 0o600 });
  up = startCli(['up', '--nats-port', '0', '--api-port', '0', '--data-dir', join(dir, 'var')], {
    CAESAR_POLICY__FILE: join(dir, 'policy.yaml'),
    CAESAR_BRAIN__TIME_ZONE: 'UTC',
    CAESAR_TOOLS__CALENDAR__CALDAV_URL: dav.url,
    CAESAR_TOOLS__CALENDAR__USERNAME: 'alice',
    CAESAR_TOOLS__CALENDAR__PASSWORD: 'alice-pw',
    CAESAR_TOOLS__CALENDAR__TIMEZONE: 'UTC',
    CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL: searx.url,
    CAESAR_HA__URL: ha.url,
    CAESAR_HA__TOKEN_FILE: join(dir, 'ha-token'),
  });
  await up.waitForLine(/^ready: /, 60_000);
}, 90_000);

afterAll(async () => {
  if (up && up.child.exitCode === null) {
    up.child.kill('SIGINT');
    await up.exited;
  }
  await Promise.allSettled([dav?.stop(), searx?.close(), ha?.close()]);
  await rm(dir, { recursive: true, force: true });
});

const chat = async (message: string) => {
  const r = await runCli(['chat', message, '--data-dir', join(dir, 'var')]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};

describe('caesar up with every backend configured by env vars', () => {
  test('every tool passes its preflight against its backend', () => {
    const text = up!.lines.join('\n');
    for (const tool of [
      'calculator',
      'calendar_read',
      'home_assistant.call_service',
      'home_assistant.entities',
      'web_search',
    ]) {
      expect(text).toMatch(new RegExp(`^preflight\\s+${tool}: ready`, 'm'));
    }
    expect(text).not.toContain(FAKE_HA_TOKEN);
    expect(text).not.toContain('alice-pw');
  });

  test("what's on my calendar this week: the weekly standup, expanded, from Radicale", async () => {
    const reply = await chat("what's on my calendar this week");
    expect(reply).toMatch(/^Your calendar for this week:/);
    const lines = reply.split('\n').filter((l) => l.includes('Standup'));
    expect(lines).toEqual([
      expect.stringMatching(/^- Mon \d+ \w+ 09:00–09:15 Standup$/),
      expect.stringMatching(/^- Wed \d+ \w+ 09:00–09:15 Standup$/),
      expect.stringMatching(/^- Fri \d+ \w+ 09:00–09:15 Standup$/),
    ]);
  });

  test('search for nats jetstream: titles with domains; a domain_allowlist edit narrows it', async () => {
    expect(await chat('search for nats jetstream')).toBe(
      [
        'Top results for nats jetstream (from searxng):',
        '- JetStream | NATS Docs (docs.nats.io)',
        '- nats-server on GitHub (github.com)',
      ].join('\n'),
    );
    await writeFile(
      join(dir, 'policy.yaml'),
      policy('  - tool: web_search\n    input:\n      domain_allowlist: [nats.io]'),
    );
    // the brain hot-reloads the file; poll the reply rather than guess the reload time
    const narrowed = await waitFor(
      async () => {
        const reply = await chat('search for nats jetstream');
        return reply.includes('github.com') ? undefined : reply;
      },
      'the policy edit to take effect',
      20_000,
      200,
    );
    expect(narrowed).toBe(
      'Top results for nats jetstream (from searxng):\n- JetStream | NATS Docs (docs.nats.io)',
    );
  });

  // the policy names ha_entities, the tool's old name: it grants home_assistant.entities (ADR 0093)
  test('turn on the kitchen light: resolved through home_assistant.entities, checked, and switched', async () => {
    expect(await chat('turn on the kitchen light')).toBe('Done: Kitchen is on.');
    expect(ha.states.get('light.kitchen')?.state).toBe('on');
    const audit = await runCli([
      'audit',
      'query',
      '--tool',
      'home_assistant.call_service',
      '--oldest',
      '--json',
      '--data-dir',
      join(dir, 'var'),
    ]);
    const rows = audit.stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { event_type: string; payload: Record<string, unknown> });
    expect(rows.map((r) => r.event_type)).toEqual(['service.called', 'tool.result']);
    expect(rows[0]?.payload).toMatchObject({
      service: 'light.turn_on',
      target: { entity_id: 'light.kitchen' },
    });
    expect(JSON.stringify(rows)).not.toContain(FAKE_HA_TOKEN);
  });
});
