import {
  notConfigured,
  PREFLIGHT_TIMEOUT_MS,
  probeHttp,
  settingName,
  type PreflightResult,
} from '../../src/legion/index.js';
import { CalDavClient, credentialsRejected } from './caldav.js';
import {
  CONFIG_SECTION,
  isConfigured,
  missingKeys,
  whatToSet,
  type CalDavSettings,
  type CalendarConfig,
} from './config.js';
import { clip, quoted } from './format.js';

type Check = NonNullable<PreflightResult['checks']>[number];

/** A check's detail is capped by the wire schema. */
const MAX_DETAIL = 2000;

const PROBE_BODY =
  '<?xml version="1.0" encoding="utf-8"?>' +
  '<d:propfind xmlns:d="DAV:"><d:prop><d:current-user-principal/><d:resourcetype/></d:prop></d:propfind>';

/**
 * Is the calendar configured, reachable and usable? Unconfigured: `configured` naming the
 * keys. Configured: one authenticated PROPFIND (Depth 0, short timeout) told apart as
 * `dns`, `connect`, `tls`, `auth`, `endpoint` (the SDK's probe), then `calendars`:
 * discovery finds at least one calendar, and every name in `calendar_names` exists.
 */
export async function preflightCalendar(config: CalendarConfig): Promise<PreflightResult> {
  if (!isConfigured(config)) return notConfigured(whatToSet(missingKeys(config)));
  const client = new CalDavClient(config, {
    timeoutMs: Math.min(PREFLIGHT_TIMEOUT_MS, config.timeoutMs),
  });
  try {
    const probe = await probeHttp(client.backend, {
      method: 'PROPFIND',
      headers: { depth: '0', 'content-type': 'application/xml; charset=utf-8' },
      body: PROBE_BODY,
    });
    const rejected = probe.reply?.status === 401;
    const checks = probe.checks.map((c) =>
      c.name === 'auth' && !c.ok && rejected ? { ...c, detail: credentialsRejected().message } : c,
    );
    if (!probe.ok) return { ok: false, checks };
    checks.push(await calendarsCheck(client, config));
    return { ok: checks.every((c) => c.ok), checks };
  } finally {
    await client.close();
  }
}

async function calendarsCheck(client: CalDavClient, config: CalDavSettings): Promise<Check> {
  const check = (ok: boolean, detail: string): Check => ({
    name: 'calendars',
    ok,
    detail: clip(detail, MAX_DETAIL),
  });
  let names: string[];
  try {
    names = (await client.discover()).map((c) => c.name);
  } catch (err) {
    return check(false, err instanceof Error ? err.message : String(err));
  }
  if (names.length === 0) return check(false, 'the account has no calendar that holds events');
  const wanted = config.calendarNames ?? [];
  const absent = wanted.filter((n) => !names.includes(n));
  if (absent.length > 0) {
    return check(
      false,
      `${settingName(CONFIG_SECTION, 'calendar_names')} names ${quoted(absent)}, which the server does not have; its calendars: ${quoted(names)}`,
    );
  }
  const reading = wanted.length > 0 ? `; reading ${quoted(wanted)}` : '';
  return check(true, `${names.length} calendar(s): ${quoted(names)}${reading}`);
}
