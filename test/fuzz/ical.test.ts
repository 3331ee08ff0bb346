import ICAL from 'ical.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { DEFAULT_MAX_STEPS } from '../../workers/calendar_read/recur.js';
import { scanObjects, type ScanResult } from '../../workers/calendar_read/scan.js';
import {
  UnusableZoneError,
  VtimezoneRules,
  ZONE_MAX_STEPS,
} from '../../workers/calendar_read/vtimezone.js';
import { CALL_ZONE_MAX_STEPS } from '../../workers/calendar_read/zones.js';
import { vcalendar, vevent } from '../unit/calendar_read/fixtures.js';
import { FUZZ_TIME_MS, fuzzParameters } from './parameters.js';

/**
 * The iCalendar reader on random VTIMEZONE and RRULE shapes (issue 26): observance counts,
 * FREQ, INTERVAL, BY-parts, RDATE counts, DTSTART years, and events in those zones. Each
 * read ends within its step budgets (per event, per zone, per call), never reaches ical.js's
 * own unbounded zone expansion, and answers something well formed: occurrences inside the
 * window, sorted, at most the limit; a zone that breaks a bound says so by its error.
 */

const FREQS = ['SECONDLY', 'MINUTELY', 'HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'];
const DAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];

const list = (arb: fc.Arbitrary<string | number>, max = 3) =>
  fc.array(arb, { minLength: 1, maxLength: max }).map((xs) => xs.join(','));

/** One RRULE value: a FREQ, maybe INTERVAL, COUNT or UNTIL, and a random handful of BY-parts. */
const rrule = fc
  .record(
    {
      FREQ: fc.constantFrom(...FREQS),
      INTERVAL: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constantFrom(100, 10_000)),
      COUNT: fc.integer({ min: 1, max: 100_000 }),
      UNTIL: fc.integer({ min: 1950, max: 2100 }).map((y) => `${y}0601T000000Z`),
      BYMONTH: list(fc.integer({ min: 1, max: 12 })),
      BYMONTHDAY: list(fc.integer({ min: -31, max: 31 }).filter((d) => d !== 0)),
      BYDAY: list(
        fc
          .tuple(fc.constantFrom('', '1', '2', '-1', '5', '-53'), fc.constantFrom(...DAYS))
          .map(([n, d]) => `${n}${d}`),
      ),
      BYHOUR: list(fc.integer({ min: 0, max: 23 })),
      BYMINUTE: list(fc.integer({ min: 0, max: 59 })),
      BYSECOND: list(fc.integer({ min: 0, max: 59 })),
      BYYEARDAY: list(fc.integer({ min: -366, max: 366 }).filter((d) => d !== 0)),
      BYWEEKNO: list(fc.integer({ min: -53, max: 53 }).filter((d) => d !== 0)),
      BYSETPOS: list(fc.integer({ min: -3, max: 3 }).filter((d) => d !== 0)),
    },
    { requiredKeys: ['FREQ'] },
  )
  .filter((r) => r.COUNT === undefined || r.UNTIL === undefined)
  .map((r) =>
    Object.entries(r)
      .map(([k, v]) => `${k}=${v}`)
      .join(';'),
  );

const year = fc.oneof(fc.integer({ min: 1900, max: 2100 }), fc.constantFrom(1, 1601, 9999));
const stamp = (y: number, m: number, d: number, h: number) =>
  `${String(y).padStart(4, '0')}${String(m).padStart(2, '0')}${String(d).padStart(2, '0')}T${String(h).padStart(2, '0')}0000`;
const localTime = fc
  .tuple(
    year,
    fc.integer({ min: 1, max: 12 }),
    fc.integer({ min: 1, max: 28 }),
    fc.integer({ min: 0, max: 23 }),
  )
  .map(([y, m, d, h]) => stamp(y, m, d, h));
const offset = fc
  .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 14 }), fc.constantFrom(0, 30, 45))
  .map(([s, h, m]) => `${s}${String(h).padStart(2, '0')}${String(m).padStart(2, '0')}`);

const observanceLines = fc
  .record({
    kind: fc.constantFrom('STANDARD', 'DAYLIGHT'),
    from: offset,
    to: offset,
    start: localTime,
    rule: fc.option(rrule, { nil: undefined }),
    rdates: fc.oneof(
      fc.array(localTime, { maxLength: 20 }),
      fc.constant(Array.from({ length: 1200 }, (_, i) => stamp(1900 + (i % 200), 3, 1, 2))),
    ),
  })
  .map((o) => [
    `BEGIN:${o.kind}`,
    `TZOFFSETFROM:${o.from}`,
    `TZOFFSETTO:${o.to}`,
    `DTSTART:${o.start}`,
    ...(o.rule ? [`RRULE:${o.rule}`] : []),
    ...(o.rdates.length > 0 ? [`RDATE:${o.rdates.join(',')}`] : []),
    `END:${o.kind}`,
  ]);

const TZID = 'Fuzz/Zone';
const vtimezone = fc
  .array(observanceLines, { maxLength: 4 })
  .map((obs) => ['BEGIN:VTIMEZONE', `TZID:${TZID}`, ...obs.flat(), 'END:VTIMEZONE'].join('\r\n'));

/** A window of up to 30 days in 2026, as instants. */
const window = fc
  .tuple(fc.integer({ min: 0, max: 364 * 24 }), fc.integer({ min: 1, max: 30 * 24 }))
  .map(([h, len]) => {
    const startMs = Date.parse('2026-01-01T00:00:00Z') + h * 3_600_000;
    return { startMs, endMs: startMs + len * 3_600_000 };
  });

const event = fc
  .record({
    start: fc.oneof(localTime, fc.constantFrom('20260301T090000')),
    zone: fc.constantFrom('zone', 'utc', 'floating'),
    rule: fc.option(rrule, { nil: undefined }),
    duration: fc.constantFrom('', 'PT0S', 'PT30S', 'PT1H', 'P1D', 'P2W'),
  })
  .map((e) => {
    const start =
      e.zone === 'zone'
        ? `DTSTART;TZID=${TZID}:${e.start}`
        : `DTSTART:${e.start}${e.zone === 'utc' ? 'Z' : ''}`;
    return vevent(
      'fuzz@test',
      'SUMMARY:Fuzz',
      start,
      ...(e.duration ? [`DURATION:${e.duration}`] : []),
      ...(e.rule ? [`RRULE:${e.rule}`] : []),
    );
  });

const LIMIT = 50;

function checkWellFormed(result: ScanResult, w: { startMs: number; endMs: number }): void {
  expect(result.found.length).toBeLessThanOrEqual(LIMIT);
  expect(result.notes.length).toBeLessThanOrEqual(20);
  let previous = Number.NEGATIVE_INFINITY;
  for (const { occurrence: o } of result.found) {
    expect(Number.isFinite(o.startMs) && Number.isFinite(o.endMs)).toBe(true);
    expect(o.endMs).toBeGreaterThanOrEqual(o.startMs);
    const inside =
      o.endMs > o.startMs
        ? o.startMs < w.endMs && o.endMs > w.startMs
        : o.startMs >= w.startMs && o.startMs < w.endMs;
    expect(inside).toBe(true);
    expect(o.startMs).toBeGreaterThanOrEqual(previous);
    previous = o.startMs;
  }
  expect(result.steps.event).toBeLessThanOrEqual(DEFAULT_MAX_STEPS);
  expect(result.steps.zones).toBeLessThanOrEqual(CALL_ZONE_MAX_STEPS);
}

beforeAll(() => {
  // ical.js's own zone expansion has no bound: nothing here may reach it
  for (const name of ['_ensureCoverage', 'utcOffset'] as const) {
    vi.spyOn(ICAL.Timezone.prototype, name).mockImplementation(() => {
      throw new Error(`ical.js Timezone.${name} was called`);
    });
  }
});

afterAll(() => {
  vi.restoreAllMocks();
});

describe('fuzz: iCalendar reading', () => {
  test(
    'a random VTIMEZONE answers offsets under a day, or breaks a bound, within its steps',
    () => {
      fc.assert(
        fc.property(
          vtimezone,
          fc.array(fc.integer({ min: -2e12, max: 4e12 }), { minLength: 1, maxLength: 5 }),
          (text, instants) => {
            let rules: VtimezoneRules;
            try {
              const cal = new ICAL.Component(ICAL.parse(vcalendar(text)) as unknown[]);
              rules = new VtimezoneRules(cal.getFirstSubcomponent('vtimezone')!);
            } catch (err) {
              // ical.js refuses the text, or the zone lists too many dated changes
              if (err instanceof UnusableZoneError) expect(err.bound).toBe('changes');
              return;
            }
            for (const t of instants) {
              try {
                const offset = rules.offsetAt(t);
                expect(Math.abs(offset)).toBeLessThan(86_400_000);
              } catch (err) {
                expect(err).toBeInstanceOf(UnusableZoneError);
                break;
              }
            }
            expect(rules.steps).toBeLessThanOrEqual(ZONE_MAX_STEPS);
          },
        ),
        fuzzParameters({ numRuns: 1_000 }),
      );
    },
    FUZZ_TIME_MS + 30_000,
  );

  test(
    'a random event in a random zone is read within its budgets, into a well-formed answer',
    () => {
      fc.assert(
        fc.property(vtimezone, event, window, (zone, vev, w) => {
          const result = scanObjects({
            objects: [{ calendar: 'Fuzz', href: '/fuzz.ics', data: vcalendar(zone, vev) }],
            window: w,
            timezone: 'Europe/Berlin',
            query: undefined,
            maxOccurrences: 1000,
            limit: LIMIT,
            deadline: Date.now() + 60_000,
          });
          checkWellFormed(result, w);
        }),
        fuzzParameters({ numRuns: 1_000 }),
      );
    },
    FUZZ_TIME_MS + 30_000,
  );
});
