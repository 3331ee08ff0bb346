import { describe, expect, test } from 'vitest';
import type { Occurrence } from '../../../workers/calendar_read/expand.js';
import { clip, matchesQuery, toEvents, type Found } from '../../../workers/calendar_read/format.js';
import { intlClock } from '../../../src/clock/index.js';

const berlin = intlClock('Europe/Berlin');

function timed(
  summary: string | undefined,
  iso: string,
  extra: Partial<Occurrence> = {},
): Occurrence {
  const startMs = Date.parse(iso);
  return {
    uid: `${summary ?? 'none'}@test`,
    summary,
    location: undefined,
    description: undefined,
    recurring: false,
    allDay: false,
    startMs,
    endMs: startMs + 3_600_000,
    ...extra,
  };
}

const found = (calendar: string, occurrence: Occurrence): Found => ({ calendar, occurrence });

describe('toEvents', () => {
  test('sorts by start, then summary; formats times in the zone; keeps all-day dates', () => {
    const allDay: Occurrence = {
      ...timed('Holiday', '2026-03-09T23:00:00Z'),
      allDay: true,
      endMs: Date.parse('2026-03-10T23:00:00Z'),
      startDate: '2026-03-10',
      endDate: '2026-03-11',
    };
    const { events, truncated } = toEvents(
      [
        found('Work', timed('Review', '2026-03-10T09:00:00Z')),
        found('Home', allDay),
        found('Work', timed('Breakfast', '2026-03-10T07:00:00Z', { location: 'Café' })),
        found('Home', timed('Alarm', '2026-03-09T23:00:00Z')),
      ],
      berlin,
      10,
    );
    expect(truncated).toBe(false);
    expect(events).toEqual([
      {
        summary: 'Alarm',
        start: '2026-03-10T00:00:00+01:00',
        end: '2026-03-10T01:00:00+01:00',
        all_day: false,
        calendar: 'Home',
        recurring: false,
        uid: 'Alarm@test',
      },
      {
        summary: 'Holiday',
        start: '2026-03-10',
        end: '2026-03-11',
        all_day: true,
        calendar: 'Home',
        recurring: false,
        uid: 'Holiday@test',
      },
      expect.objectContaining({
        summary: 'Breakfast',
        location: 'Café',
        start: '2026-03-10T08:00:00+01:00',
      }),
      expect.objectContaining({ summary: 'Review', start: '2026-03-10T10:00:00+01:00' }),
    ]);
  });

  test('keeps the earliest `limit` events and says it left some out', () => {
    const many = Array.from({ length: 5 }, (_, i) =>
      found('Home', timed(`E${i}`, `2026-03-1${i}T09:00:00Z`)),
    ).reverse();
    const { events, truncated } = toEvents(many, berlin, 3);
    expect(events.map((e) => e.summary)).toEqual(['E0', 'E1', 'E2']);
    expect(truncated).toBe(true);
  });

  test('an event with no summary is "(no title)"; long texts are clipped', () => {
    const { events } = toEvents(
      [found('Home', timed(undefined, '2026-03-10T09:00:00Z', { description: 'x'.repeat(5000) }))],
      berlin,
      1,
    );
    expect(events[0]?.summary).toBe('(no title)');
    expect(events[0]?.description).toHaveLength(1000);
    expect(events[0]?.description?.endsWith('…')).toBe(true);
  });
});

describe('matchesQuery', () => {
  const o = timed('Dentist', '2026-03-10T09:00:00Z', {
    location: 'Hauptstraße 5',
    description: 'Bring the X-ray',
  });
  test.each([
    [undefined, true],
    ['dENTist', true],
    ['HAUPTSTRASSE', false],
    ['hauptstraße', true],
    ['x-RAY', true],
    ['gym', false],
  ])('%j -> %s', (query, expected) => {
    expect(matchesQuery(o, query)).toBe(expected);
  });
});

test('clip never cuts a surrogate pair in half', () => {
  expect(clip('ab😀cd', 4)).toBe('ab…');
  expect(clip('abc', 3)).toBe('abc');
});
