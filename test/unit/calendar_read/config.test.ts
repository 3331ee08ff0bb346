import { describe, expect, test } from 'vitest';
import {
  callTimeZone,
  CalendarConfigSchema,
  missingKeys,
  notConfiguredMessage,
} from '../../../workers/calendar_read/config.js';

const parse = (section: unknown) => CalendarConfigSchema.safeParse(section);

describe('calendar config', () => {
  test('an empty section is valid and unconfigured, with the defaults', () => {
    const config = CalendarConfigSchema.parse({});
    expect(config).toMatchObject({
      url: undefined,
      calendarNames: undefined,
      timeoutMs: 10_000,
      verifyTls: true,
      maxOccurrences: 1000,
    });
    // the host's zone, looked up by each call rather than at start
    expect(config.timeZone).toBeUndefined();
    expect(callTimeZone(config)).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(missingKeys(config)).toEqual(['caldav_url']);
  });

  test('values from the environment arrive as strings', () => {
    const config = CalendarConfigSchema.parse({
      caldav_url: 'https://dav.example.org/remote.php/dav/',
      username: 'alice',
      password: 'pw',
      calendar_names: ' Family , Work,,Family ',
      timezone: 'Pacific/Auckland',
      timeout_seconds: '2.5',
      verify_ssl: 'false',
      max_occurrences: '50',
    });
    expect(config).toEqual({
      url: 'https://dav.example.org/remote.php/dav/',
      username: 'alice',
      password: 'pw',
      calendarNames: ['Family', 'Work'],
      timeZone: 'Pacific/Auckland',
      timeoutMs: 2500,
      verifyTls: false,
      maxOccurrences: 50,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  test.each([
    ['0', false],
    ['off', false],
    ['TRUE', true],
    [true, true],
  ])('verify_ssl %j is %s', (value, expected) => {
    expect(CalendarConfigSchema.parse({ verify_ssl: value }).verifyTls).toBe(expected);
  });

  test('calendar_names may be a YAML list; a YAML number password is a string', () => {
    const config = CalendarConfigSchema.parse({ calendar_names: ['Work'], password: 123456 });
    expect(config.calendarNames).toEqual(['Work']);
    expect(config.password).toBe('123456');
  });

  test.each([
    [{ caldav_url: 'ftp://x' }, 'caldav_url'],
    [{ caldav_url: 'https://alice:pw@dav.example.org/' }, 'caldav_url'],
    [{ username: 'a:b' }, 'username'],
    [{ timezone: 'Mars/Olympus' }, 'timezone'],
    [{ timeout_seconds: '0' }, 'timeout_seconds'],
    [{ verify_ssl: 'maybe' }, 'verify_ssl'],
    [{ max_occurrences: '1.5' }, 'max_occurrences'],
  ])('%j is refused at %s', (section, key) => {
    const result = parse(section);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toContain(key);
  });

  test('an unknown key is refused, named', () => {
    const result = parse({ caldav_url: 'http://127.0.0.1:5232/', calendar: 'x' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/calendar/);
  });

  test('a refusal never quotes the password', () => {
    const result = parse({ password: ['s3cret-value'] });
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).not.toContain('s3cret-value');
  });

  test('the missing keys are named as env var and YAML key', () => {
    const noUser = CalendarConfigSchema.parse({ caldav_url: 'http://127.0.0.1:5232/' });
    expect(missingKeys(noUser)).toEqual(['username', 'password']);
    expect(notConfiguredMessage(missingKeys(noUser))).toBe(
      'calendar_read is not configured: set CAESAR_TOOLS__CALENDAR__USERNAME (tools.calendar.username) and CAESAR_TOOLS__CALENDAR__PASSWORD (tools.calendar.password) (or CAESAR_TOOLS__CALENDAR__PASSWORD_FILE naming a file that holds it)',
    );
  });
});
