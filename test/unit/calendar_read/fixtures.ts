/**
 * iCalendar text for the calendar_read tests, written from RFC 5545 (lines joined with CRLF).
 * Shared by the unit tests (the expander on its own) and the integration tests (the same
 * objects stored in Radicale).
 */

/** Wraps components (VEVENT, VTIMEZONE blocks) in a VCALENDAR. */
export function vcalendar(...components: string[]): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//CAESAR//calendar_read tests//EN'];
  return [...lines, ...components.map((c) => c.trim()), 'END:VCALENDAR', ''].join('\r\n');
}

/** One VEVENT from property lines (`DTSTART:...`); adds DTSTAMP. */
export function vevent(uid: string, ...props: string[]): string {
  return ['BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20260101T000000Z', ...props, 'END:VEVENT'].join(
    '\r\n',
  );
}

/** America/New_York as clients send it (US rules since 2007), under any TZID. */
export function newYorkVtimezone(tzid = 'America/New_York'): string {
  return [
    'BEGIN:VTIMEZONE',
    `TZID:${tzid}`,
    'BEGIN:DAYLIGHT',
    'TZOFFSETFROM:-0500',
    'TZOFFSETTO:-0400',
    'TZNAME:EDT',
    'DTSTART:20070311T020000',
    'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU',
    'END:DAYLIGHT',
    'BEGIN:STANDARD',
    'TZOFFSETFROM:-0400',
    'TZOFFSETTO:-0500',
    'TZNAME:EST',
    'DTSTART:20071104T020000',
    'RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU',
    'END:STANDARD',
    'END:VTIMEZONE',
  ].join('\r\n');
}

/** Europe/Berlin as Radicale adds it to objects that name the zone without defining it. */
export function berlinVtimezone(): string {
  return [
    'BEGIN:VTIMEZONE',
    'TZID:Europe/Berlin',
    'BEGIN:STANDARD',
    'DTSTART:20001029T030000',
    'RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10',
    'TZNAME:CET',
    'TZOFFSETFROM:+0200',
    'TZOFFSETTO:+0100',
    'END:STANDARD',
    'BEGIN:DAYLIGHT',
    'DTSTART:20000326T020000',
    'RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3',
    'TZNAME:CEST',
    'TZOFFSETFROM:+0100',
    'TZOFFSETTO:+0200',
    'END:DAYLIGHT',
    'END:VTIMEZONE',
  ].join('\r\n');
}

/**
 * A weekly Monday 09:00 (Europe/Berlin) standup in March 2026: 03-09 excluded (EXDATE),
 * 03-16 moved to Tuesday 03-17 14:00, 03-23 cancelled; 03-02 and 03-30 as ruled (Berlin
 * moves to summer time on 03-29).
 */
export const STANDUP = vcalendar(
  vevent(
    'standup@test',
    'SUMMARY:Standup',
    'LOCATION:Office',
    'DTSTART;TZID=Europe/Berlin:20260302T090000',
    'DTEND;TZID=Europe/Berlin:20260302T093000',
    'RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20260330T070000Z',
    'EXDATE;TZID=Europe/Berlin:20260309T090000',
  ),
  vevent(
    'standup@test',
    'SUMMARY:Standup (moved)',
    'RECURRENCE-ID;TZID=Europe/Berlin:20260316T090000',
    'DTSTART;TZID=Europe/Berlin:20260317T140000',
    'DTEND;TZID=Europe/Berlin:20260317T143000',
  ),
  vevent(
    'standup@test',
    'SUMMARY:Standup',
    'RECURRENCE-ID;TZID=Europe/Berlin:20260323T090000',
    'DTSTART;TZID=Europe/Berlin:20260323T090000',
    'DTEND;TZID=Europe/Berlin:20260323T093000',
    'STATUS:CANCELLED',
  ),
);

/** 09:00 New York every Monday from 2026-03-02 (EST) across the 03-08 change to EDT. */
export const NEW_YORK_WEEKLY = vcalendar(
  newYorkVtimezone(),
  vevent(
    'ny-weekly@test',
    'SUMMARY:New York call',
    'DTSTART;TZID=America/New_York:20260302T090000',
    'DTEND;TZID=America/New_York:20260302T100000',
    'RRULE:FREQ=WEEKLY;COUNT=4',
  ),
);

/** All day 2026-03-10 to 2026-03-12 inclusive (DTEND 03-13, exclusive). */
export const TRIP = vcalendar(
  vevent(
    'trip@test',
    'SUMMARY:Ski trip',
    'DTSTART;VALUE=DATE:20260310',
    'DTEND;VALUE=DATE:20260313',
    'DESCRIPTION:Bring the boots\\, and the poles',
  ),
);

/**
 * A hostile VTIMEZONE (issue 26, finding 1): both observances change the offset every second
 * from `since` (1900 as found), which ical.js's own expansion walks second by second up to
 * five years past the one asked. (Radicale 3.1's vobject takes minutes over the 1900 form on
 * PUT, so tests that store it there start the rules a minute before the event.)
 */
export function everySecondVtimezone(tzid = 'Europe/Berlin', since = '19000101T000000'): string {
  const observance = (kind: string, from: string, to: string) => [
    `BEGIN:${kind}`,
    `TZOFFSETFROM:${from}`,
    `TZOFFSETTO:${to}`,
    `DTSTART:${since}`,
    'RRULE:FREQ=SECONDLY',
    `END:${kind}`,
  ];
  return [
    'BEGIN:VTIMEZONE',
    `TZID:${tzid}`,
    ...observance('DAYLIGHT', '+0100', '+0200'),
    ...observance('STANDARD', '+0200', '+0100'),
    'END:VTIMEZONE',
  ].join('\r\n');
}
