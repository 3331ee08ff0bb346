export { calendarReadTool, createCalendarReadTool } from './tool.js';
export type { CalendarReadToolOptions } from './tool.js';
export {
  CalendarConfigSchema,
  CONFIG_SECTION,
  DEFAULT_MAX_OCCURRENCES,
  DEFAULT_TIMEOUT_SECONDS,
} from './config.js';
export type { CalendarConfig } from './config.js';
export {
  CalendarReadInputSchema,
  CalendarReadResultSchema,
  CalendarEventSchema,
  DEFAULT_LIMIT,
  MAX_LIMIT,
  MAX_RANGE_DAYS,
} from './schema.js';
export type { CalendarReadInput, CalendarReadResult, CalendarEvent } from './schema.js';
export { CALENDAR_CACHE_TTL_MS, MAX_RESPONSE_BYTES } from './caldav.js';
export { DEFAULT_MAX_STEPS } from './recur.js';
export { MAX_DESCRIPTION_CHARS, MAX_TEXT_CHARS } from './format.js';
