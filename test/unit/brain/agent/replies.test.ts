import { describe, expect, test } from 'vitest';
import type { CapabilityReport } from '../../../../src/brain/agent/index.js';
import {
  clockReply,
  greetingReply,
  helpReply,
  offlineReply,
  SETUP_POINTER,
  unavailableReply,
} from '../../../../src/brain/agent/replies.js';

// Issue 29, point 4: the no-model replies are short and name no env var (those broke
// mid-word on a phone and filled the chat box); the setup details are one pointer away.

/** As the brain's Capabilities reports a stack where only the calculator works. */
const REPORT: CapabilityReport = {
  ready: [{ what: 'do arithmetic and unit conversions', example: 'what is 17 * 23' }],
  missing: [
    {
      what: 'search the web',
      example: 'search for the ISS orbit height',
      step: 'start the web_search tool',
      steps: [
        'web_search is not running; start it: `caesar legion serve-tool web_search --data-dir /srv/caesar/var`',
      ],
    },
    {
      what: 'read your calendar',
      example: "what's on my calendar today",
      step: 'allow calendar_read in the policy',
      steps: [
        'calendar_read is not granted; grant it: add `- tool: calendar_read` under `allowed_tools:` in /etc/caesar/policy.yaml',
        'calendar_read is not configured; set CAESAR_TOOLS__CALENDAR__CALDAV_URL (tools.calendar.caldav_url), then restart `caesar up`',
      ],
    },
  ],
};

/** What a phone's chat box must not be handed: env var names, commands, file paths. */
function expectShort(reply: string, maxLines: number): void {
  const lines = reply.split('\n');
  expect(lines.length).toBeLessThanOrEqual(maxLines);
  expect(reply).not.toMatch(/CAESAR_|serve-tool|policy\.yaml|caesar\.yaml/);
  for (const line of lines) expect(line.length).toBeLessThanOrEqual(120);
}

describe('offline replies', () => {
  test('no rule matched: says so, gives what works as examples, points at the details', () => {
    const reply = offlineReply(REPORT);
    expect(reply).toBe(
      [
        'No local rule matched that, and no language model is set up to answer anything else.',
        "Things I can do now: 'what time is it' or 'what is 17 * 23'. Ask \"what can you do\" for the list.",
        'Setup details: `/help setup` in `caesar chat`, or the Tools panel on the dashboard.',
      ].join('\n'),
    );
    expectShort(reply, 3);
  });

  test('a greeting: brief, with one line on what works now', () => {
    const reply = greetingReply(REPORT);
    expect(reply).toBe(
      'Hello! No language model is set up, so I answer from local rules.\n' +
        'Right now I can tell the time and date and do arithmetic and unit conversions. ' +
        'Ask "what can you do" for more.',
    );
    expectShort(reply, 2);
  });

  test('a greeting names at most four things, then "and other things"', () => {
    const ready = ['a', 'b', 'c', 'd', 'e'].map((what) => ({ what }));
    expect(greetingReply({ ready, missing: [] }).split('\n')[1]).toBe(
      'Right now I can tell the time and date, a, b, c and other things. Ask "what can you do" for more.',
    );
  });

  test('what can you do: what works, what could with one short step each, the pointer', () => {
    const reply = helpReply(REPORT);
    expect(reply).toBe(
      [
        'Without a language model, I can:',
        "- tell the time and date (e.g. 'what time is it')",
        "- do arithmetic and unit conversions (e.g. 'what is 17 * 23')",
        'Could work after one step:',
        '- search the web: start the web_search tool',
        '- read your calendar: allow calendar_read in the policy',
        '- answer anything else: add a language model (llm.provider and llm.model)',
        SETUP_POINTER,
      ].join('\n'),
    );
    expectShort(reply, 8);
    expect(SETUP_POINTER).toContain('the Tools panel');
  });

  test('a model that could not answer: why, examples of what still works, the pointer', () => {
    const reply = unavailableReply('openai (gpt at 127.0.0.1:1) connection refused', REPORT);
    expect(reply.split('\n')).toEqual([
      "I couldn't get an answer from a language model: openai (gpt at 127.0.0.1:1) connection refused.",
      "Without it I can still answer, for example: 'what is 17 * 23'.",
      SETUP_POINTER,
    ]);
  });

  test('the time and the date, on the brain clock in its zone', () => {
    // 23:30 UTC on a Saturday is already Sunday in Berlin, the day clocks go forward
    const now = new Date('2026-03-28T23:30:00Z');
    expect(clockReply('time', now, 'Europe/Berlin')).toBe(
      "It's 00:30 on Sunday, 29 March 2026 (Europe/Berlin, UTC+01:00).",
    );
    expect(clockReply('date', now, 'Europe/Berlin')).toBe(
      'Today is Sunday, 29 March 2026 (2026-03-29, Europe/Berlin, UTC+01:00).',
    );
    expect(clockReply('time', now, 'UTC')).toBe(
      "It's 23:30 on Saturday, 28 March 2026 (UTC, UTC+00:00).",
    );
    expect(clockReply('date', new Date('2026-12-05T06:00:00Z'), 'America/New_York')).toBe(
      'Today is Saturday, 5 December 2026 (2026-12-05, America/New_York, UTC-05:00).',
    );
  });
});
