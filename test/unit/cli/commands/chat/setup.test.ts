import { describe, expect, test } from 'vitest';
import {
  CapabilitiesViewSchema,
  type CapabilitiesView,
} from '../../../../../src/brain/api/index.js';
import { setupLines } from '../../../../../src/cli/commands/chat/setup.js';

// Issue 29, point 4: the setup details left the chat replies for `caesar chat /help setup`,
// which prints the brain's GET /v1/capabilities: every step in full, escaped for a terminal.

const VIEW: CapabilitiesView = {
  model: {
    configured: false,
    steps: ['set `llm.provider` and `llm.model` in caesar.yaml, then restart `caesar up`'],
  },
  ready: [{ what: 'tell the time and date', example: 'what time is it' }],
  missing: [
    {
      what: 'search the web',
      example: 'search for the ISS orbit height',
      step: 'start the web_search tool',
      steps: ['web_search is not running; start it: `caesar legion serve-tool web_search`'],
    },
    {
      what: 'read your calendar',
      step: 'allow calendar_read in the policy',
      steps: [
        'calendar_read is not granted; grant it: add `- tool: calendar_read`',
        'calendar_read is not configured; set CAESAR_TOOLS__CALENDAR__CALDAV_URL (tools.calendar.caldav_url)',
      ],
    },
  ],
};

describe('/help setup', () => {
  test('what works, each missing capability with every step, and what adds a model', () => {
    expect(setupLines(VIEW)).toEqual([
      'Working now:',
      "- tell the time and date (e.g. 'what time is it')",
      'Not available yet:',
      "- search the web (e.g. 'search for the ISS orbit height'): web_search is not running; start it: `caesar legion serve-tool web_search`",
      '- read your calendar:',
      '  - calendar_read is not granted; grant it: add `- tool: calendar_read`',
      '  - calendar_read is not configured; set CAESAR_TOOLS__CALENDAR__CALDAV_URL (tools.calendar.caldav_url)',
      'No language model is configured; to answer anything else, add one:',
      '- set `llm.provider` and `llm.model` in caesar.yaml, then restart `caesar up`',
    ]);
  });

  test('with a model and nothing missing it says so in one line each', () => {
    const view = { model: { configured: true, steps: [] }, ready: [], missing: [] };
    expect(setupLines(view)).toEqual([
      'None of the local rules can run yet.',
      'A language model answers what no local rule does.',
    ]);
  });

  test('text from the intents file or a worker cannot drive the terminal or forge a line', () => {
    const view: CapabilitiesView = {
      ...VIEW,
      ready: [{ what: 'evil\u001b]0;pwned\u0007 rule\nWorking now:', example: 'x\u202ey' }],
    };
    const lines = setupLines(view);
    expect(lines[1]).toBe("- evil\\u001b]0;pwned\\u0007 rule\\nWorking now: (e.g. 'x\\u202ey')");
    // eslint-disable-next-line no-control-regex -- looking for control characters is the point
    for (const line of lines) expect(line).not.toMatch(/[\u0000-\u001f\u202e]/);
  });

  test('the client refuses an answer past the contract bounds', () => {
    const long = { ...VIEW, ready: [{ what: 'x'.repeat(2001) }] };
    expect(CapabilitiesViewSchema.safeParse(long).success).toBe(false);
    const many = { ...VIEW, ready: Array.from({ length: 257 }, () => ({ what: 'x' })) };
    expect(CapabilitiesViewSchema.safeParse(many).success).toBe(false);
  });
});
