import { z } from 'zod';

/** The longest range one call reads. */
export const MAX_RANGE_DAYS = 366;
/** @default 50 events per answer. */
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

/**
 * ISO 8601 date or date-time, the forms the policy's `max_range_days` also reads
 * (src/policy/matchers/calendar-read.ts): `2026-03-10`, `2026-03-10T09:00`,
 * `2026-03-10T09:00:00Z`, `2026-03-10T09:00:00+01:00`.
 */
const ISO_DATE_RE =
  /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:?\d{2})?)?$/;

const when = (what: string) =>
  z
    .string()
    .max(40)
    .regex(ISO_DATE_RE, { error: 'expected an ISO 8601 date (2026-03-10) or date-time' })
    .describe(what);

/** calendar_read's input. */
export const CalendarReadInputSchema = z.strictObject({
  start: when(
    'Start of the range, inclusive: a date (2026-03-10, local midnight in the configured time zone) or a date-time with offset (2026-03-10T09:00:00+01:00; without offset: local time). Default: now.',
  ).optional(),
  end: when(
    'End of the range, exclusive, same forms as start: for the whole day of 2026-03-10 give 2026-03-11. Default: start + 7 days. Give end or days, not both.',
  ).optional(),
  days: z
    .number()
    .positive()
    .max(MAX_RANGE_DAYS)
    .optional()
    .describe('Length of the range in days from start (1 = one day); instead of end.'),
  calendars: z
    .array(z.string().min(1).max(200))
    .min(1)
    .max(50)
    .optional()
    .describe('Calendar names to read, as shown by the calendar app. Default: every calendar.'),
  query: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Only events whose title, location or description contains this text (any case).'),
  limit: z
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .default(DEFAULT_LIMIT)
    .describe(`Most events to return, earliest first. Default ${DEFAULT_LIMIT}.`),
});
export type CalendarReadInput = z.infer<typeof CalendarReadInputSchema>;

const CalendarEventSchema = z.strictObject({
  summary: z.string().describe('The event title.'),
  start: z
    .string()
    .describe(
      'Timed events: RFC 3339 in the configured time zone (2026-03-09T14:00:00+01:00). All-day events: a date (2026-03-09).',
    ),
  end: z
    .string()
    .describe('Same form as start; exclusive: an all-day event on 2026-03-09 ends 2026-03-10.'),
  all_day: z.boolean(),
  location: z.string().optional(),
  description: z.string().optional().describe('At most 1000 characters.'),
  calendar: z.string().describe('The name of the calendar the event is in.'),
  recurring: z.boolean().describe('True for one occurrence of a repeating event.'),
  uid: z.string().describe('The event UID; the occurrences of a repeating event share it.'),
});
export type CalendarEvent = z.infer<typeof CalendarEventSchema>;

/** calendar_read's answer. */
export const CalendarReadResultSchema = z.strictObject({
  start: z.string().describe('The range read, inclusive, RFC 3339 in `timezone`.'),
  end: z.string().describe('The end of the range, exclusive.'),
  timezone: z.string().describe('The IANA time zone of every time in this answer.'),
  events: z
    .array(CalendarEventSchema)
    .describe('Events overlapping the range, by start time; repeating events as occurrences.'),
  truncated: z
    .boolean()
    .optional()
    .describe('True when more events matched than are listed: narrow the range or raise limit.'),
});
export type CalendarReadResult = z.infer<typeof CalendarReadResultSchema>;
