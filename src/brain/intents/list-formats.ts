/**
 * The `agenda` and `links` filters: a list of calendar events (the `calendar_read` result's
 * `events`) or of search results (`web_search`'s `results`) as reply lines, each starting
 * with a line break and a `- ` bullet, so a reply reads well without a template language of
 * its own: `Your calendar for {when}:{result.events|agenda|or: nothing on it.}`. An empty or
 * unreadable list renders as empty text, so `|or:` gives the fallback on the same line.
 */

/** Most lines a list filter writes; the rest is counted ("… and 4 more"). */
const MAX_LIST_LINES = 15;
const MAX_LINE_TEXT = 80;

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})/;
const TIME_RE = /^\d{4}-\d{2}-\d{2}[T ](\d{2}):(\d{2})/;

interface AgendaEvent {
  summary: string;
  start: string;
  end: string;
  allDay: boolean;
  location: string | undefined;
}

/** `- 09:00–09:30 Standup (Room 1)`; with a day in front when the events span several days. */
export function agendaLines(value: unknown): string {
  const events = listOf(value)
    .map(readEvent)
    .filter((e) => e !== undefined);
  if (events.length === 0) return '';
  const days = new Set(events.map((e) => e.start.slice(0, 10)));
  const withDay = days.size > 1;
  const lines = events.slice(0, MAX_LIST_LINES).map((e) => `- ${agendaLine(e, withDay)}`);
  return withMore(lines, events.length);
}

/** `- JetStream | NATS Docs (docs.nats.io)`. */
export function linkLines(value: unknown): string {
  const lines: string[] = [];
  let total = 0;
  for (const item of listOf(value)) {
    const title = text(field(item, 'title'));
    const url = text(field(item, 'url'));
    if (title === undefined && url === undefined) continue;
    total += 1;
    if (lines.length >= MAX_LIST_LINES) continue;
    const domain = text(field(item, 'domain')) ?? hostOf(url);
    lines.push(`- ${clip(title ?? url ?? '')}${domain ? ` (${domain})` : ''}`);
  }
  return lines.length === 0 ? '' : withMore(lines, total);
}

function agendaLine(e: AgendaEvent, withDay: boolean): string {
  const where = e.location ? ` (${clip(e.location)})` : '';
  const day = withDay ? `${dayLabel(e.start)} ` : '';
  if (e.allDay) {
    const last = lastAllDayDate(e.start, e.end);
    const span =
      last !== undefined && last !== e.start.slice(0, 10) ? ` until ${dayLabel(last)}` : '';
    return `${day}all day${span}: ${clip(e.summary)}${where}`;
  }
  const from = timeOf(e.start);
  const to = timeOf(e.end);
  const sameDay = e.start.slice(0, 10) === e.end.slice(0, 10);
  const until = to === undefined ? '' : sameDay ? `–${to}` : ` – ${dayLabel(e.end)} ${to}`;
  return `${day}${from ?? e.start}${until} ${clip(e.summary)}${where}`;
}

function readEvent(item: unknown): AgendaEvent | undefined {
  const summary = text(field(item, 'summary')) ?? '(no title)';
  const start = text(field(item, 'start'));
  const end = text(field(item, 'end')) ?? start;
  if (start === undefined || end === undefined || !DATE_RE.test(start)) return undefined;
  return {
    summary,
    start,
    end,
    allDay: field(item, 'all_day') === true,
    location: text(field(item, 'location')),
  };
}

/** iCalendar all-day ends are exclusive: the last day of `2026-03-10`..`2026-03-12` is the 11th. */
function lastAllDayDate(start: string, end: string): string | undefined {
  const m = DATE_RE.exec(end);
  if (m === null || end.slice(0, 10) <= start.slice(0, 10)) return undefined;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]) - 1));
  return d.toISOString().slice(0, 10);
}

/** `Mon 9 Mar` for `2026-03-09…`, read from the text: no time zone can shift it. */
function dayLabel(iso: string): string {
  const m = DATE_RE.exec(iso);
  if (m === null) return iso;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return `${DAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
}

/** `09:00` for `2026-03-09T09:00:00+01:00`: the wall time the tool already gave in its zone. */
function timeOf(iso: string): string | undefined {
  const m = TIME_RE.exec(iso);
  return m === null ? undefined : `${m[1]}:${m[2]}`;
}

function withMore(lines: string[], total: number): string {
  const more = total - lines.length;
  const all = more > 0 ? [...lines, `- … and ${more} more`] : lines;
  return all.map((line) => `\n${line}`).join('');
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}

function field(item: unknown, key: string): unknown {
  if (typeof item !== 'object' || item === null || !Object.hasOwn(item, key)) return undefined;
  return (item as Record<string, unknown>)[key];
}

function text(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const t = v.replace(/\s+/g, ' ').trim();
  return t === '' ? undefined : t;
}

function clip(t: string): string {
  return t.length <= MAX_LINE_TEXT ? t : `${t.slice(0, MAX_LINE_TEXT - 1)}…`;
}

function hostOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return undefined;
  }
}
