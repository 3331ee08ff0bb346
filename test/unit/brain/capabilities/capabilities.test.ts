import { describe, expect, test } from 'vitest';
import { configureBrief } from '../../../../src/brain/capabilities/capabilities.js';
import { whatToSet as calendarWhatToSet } from '../../../../workers/calendar_read/config.js';
import { whatToSet as haWhatToSet } from '../../../../src/clients/home-assistant/config.js';
import { WHAT_TO_SET as WEB_SEARCH_WHAT_TO_SET } from '../../../../workers/web_search/config.js';
import { settingName } from '../../../../src/text/index.js';

// Issue 29, point 4: a chat reply gives one short step per missing capability, without the
// env var names a phone breaks mid-word; the full preflight text stays for `/help setup`.

describe('the short step for a tool whose backend is not configured', () => {
  test.each<[string, string, string]>([
    [
      'web_search',
      `configured: ${WEB_SEARCH_WHAT_TO_SET}`,
      'set tools.web_search.searxng_url (or 2 other options)',
    ],
    [
      'call_service',
      `configured: ${haWhatToSet([settingName('ha', 'url'), settingName('ha', 'token')])}`,
      'set ha.url and ha.token',
    ],
    [
      'calendar_read',
      `configured: ${calendarWhatToSet(['caldav_url'])}`,
      'set tools.calendar.caldav_url',
    ],
    [
      'calendar_read',
      `configured: ${calendarWhatToSet(['caldav_url', 'password'])}`,
      'set tools.calendar.caldav_url and tools.calendar.password',
    ],
    ['weather', 'configured: ask the operator', 'configure weather'],
  ])('%s: %j -> %j', (tool, detail, brief) => {
    expect(configureBrief(tool, detail)).toBe(brief);
    expect(brief).not.toMatch(/CAESAR_/);
  });
});
