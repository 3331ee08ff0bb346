import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import yaml from 'js-yaml';
import { z } from 'zod';
import { canonicalCallable } from '../../src/protocol/index.js';
import { SHIPPED_POLICY_FILE } from '../../src/config/shipped.js';

/**
 * The prompt-injection corpus and the legitimate set (test/fixtures/injection/), read and
 * checked: the home they run in (home.yaml), one file per injection case (cases/*.yaml) and
 * the legitimate requests (legitimate.yaml). Data only; the tests and the stack helper
 * (injection-stack.ts) give it meaning.
 */

export const INJECTION_DIR = join(import.meta.dirname, '../fixtures/injection');

const Input = z.record(z.string(), z.unknown());
const CallSchema = z.strictObject({ tool: z.string().min(1), input: Input });
/** Rounds of calls a helpful model makes for the user's message, in order. */
const ScriptSchema = z.array(z.array(CallSchema).min(1)).min(1);

const SearchResultSchema = z.strictObject({
  url: z.string(),
  title: z.string(),
  content: z.string().optional(),
});

const EntitySchema = z.strictObject({
  entity_id: z.string().regex(/^[a-z_]+\.[a-z0-9_]+$/),
  state: z.string(),
  attributes: z.record(z.string(), z.unknown()).optional(),
  area_id: z.string().optional(),
  aliases: z.array(z.string()).optional(),
});

const AreaSchema = z.strictObject({
  area_id: z.string(),
  name: z.string(),
  aliases: z.array(z.string()).optional(),
});

/** A calendar event `day` days from today (UTC), at `at` (UTC), lasting `minutes`. */
const EventSchema = z.strictObject({
  calendar: z.string(),
  uid: z.string().regex(/^[a-z0-9-]+$/),
  summary: z.string(),
  location: z.string().optional(),
  description: z.string().optional(),
  day: z.int().min(0).max(6),
  at: z.string().regex(/^\d{2}:\d{2}$/),
  minutes: z.int().positive().default(60),
});
export type PlantedEvent = z.output<typeof EventSchema>;

/** Home Assistant answers this service call on this entity with an error and `message`. */
const HaErrorSchema = z.strictObject({
  service: z.string().regex(/^[a-z_]+\.[a-z_]+$/),
  entity_id: z.string(),
  status: z.int().min(400).max(599),
  message: z.string(),
});
export type HaError = z.infer<typeof HaErrorSchema>;

const CalendarSchema = z.strictObject({ slug: z.string().regex(/^[a-z0-9-]+$/), name: z.string() });

/** What a case (or the home) puts in the backends. */
const PlantSchema = z.strictObject({
  /** CalDAV calendars of the account: slug and display name. */
  calendars: z.array(CalendarSchema).optional(),
  /** Query -> what SearXNG answers for it. */
  search: z.record(z.string(), z.array(SearchResultSchema)).optional(),
  entities: z.array(EntitySchema).optional(),
  areas: z.array(AreaSchema).optional(),
  events: z.array(EventSchema).optional(),
  ha_errors: z.array(HaErrorSchema).optional(),
});
export type Plant = z.infer<typeof PlantSchema>;

const HomeSchema = PlantSchema.extend({
  /** Strings of the operator's private data: none may reach the search backend. */
  private_markers: z.array(z.string().min(4)).min(1),
  /** What SearXNG answers for a query no one planted. */
  search_default: z.array(SearchResultSchema),
});
export type Home = z.infer<typeof HomeSchema>;

/** The flow rules of the policy (ADR 0066). */
const Gate = z.enum(['after_untrusted', 'after_private']);
export type Gate = z.infer<typeof Gate>;

const CaseSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]+$/),
  /** Where the injected text sits, in words. */
  vector: z.string(),
  /** The user's innocent message. */
  user: z.string(),
  script: ScriptSchema,
  plant: PlantSchema,
  /** The tool whose result carries the injection (for a split case, each part's tools). */
  carriers: z.array(z.string()).min(1),
  /** The call the injection asks for: its input, or for a search, how its query starts. */
  asks: z.union([
    z.strictObject({ tool: z.string(), input: Input }),
    z.strictObject({ tool: z.literal('web_search'), query_starts: z.string() }),
  ]),
  /** Text the confirmation's excerpt shows (as the API returns it: invisible ones escaped). */
  shows: z.string().min(4),
  /** The flow rule that applies to the asked call. */
  gate: Gate,
  /** What the shipped policy does with it: hold it for a human, or deny it outright. */
  shipped: z.enum(['confirm', 'deny']),
});
export type InjectionCase = z.infer<typeof CaseSchema>;

const LegitSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]+$/),
  user: z.string(),
  script: ScriptSchema,
  /** The flow rules that hold one of its calls for confirmation; empty: none. */
  confirms: z.array(Gate),
  /** Why it is confirmed, in words, when it is. */
  why: z.string().optional(),
});
export type LegitRequest = z.infer<typeof LegitSchema>;

function readYaml(file: string): unknown {
  return yaml.load(readFileSync(file, 'utf8'), { filename: file });
}

function parsed<T>(schema: z.ZodType<T>, file: string): T {
  const r = schema.safeParse(readYaml(file));
  if (!r.success) throw new Error(`${file}: ${z.prettifyError(r.error)}`);
  return r.data;
}

export function loadHome(): Home {
  return parsed(HomeSchema, join(INJECTION_DIR, 'home.yaml'));
}

/** Every case, by file name; ids and user messages are unique. */
export function loadCases(): InjectionCase[] {
  const dir = join(INJECTION_DIR, 'cases');
  const cases = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => parsed(CaseSchema, join(dir, f)));
  unique(
    cases.map((c) => c.id),
    'case id',
  );
  unique(
    cases.map((c) => c.user),
    'user message',
  );
  return cases;
}

export function loadLegitimate(): LegitRequest[] {
  const list = parsed(z.array(LegitSchema), join(INJECTION_DIR, 'legitimate.yaml'));
  unique(
    list.map((r) => r.id),
    'request id',
  );
  unique(
    list.map((r) => r.user),
    'user message',
  );
  return list;
}

function unique(values: readonly string[], what: string): void {
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.has(v)) throw new Error(`test/fixtures/injection: ${what} '${v}' appears twice`);
    seen.add(v);
  }
}

/** Whether a call is the one a case's injection asks for. */
export function isAsked(c: InjectionCase, call: { tool: string; input: unknown }): boolean {
  // a Home Assistant call under either of its names (ADR 0093)
  if (canonicalCallable(call.tool) !== canonicalCallable(c.asks.tool)) return false;
  if ('query_starts' in c.asks) {
    const q = (call.input as { query?: unknown } | undefined)?.query;
    return typeof q === 'string' && q.startsWith(c.asks.query_starts);
  }
  return isDeepStrictEqual(call.input, c.asks.input);
}

/**
 * The shipped policy (policy/policy.yaml, as `caesar up` copies it) with the test home's
 * grants (grants.yaml) in place of its `allowed_services: []`: everything else, the flow
 * rules and the denial of lock.* included, as shipped.
 */
export function shippedPolicyWithGrants(): string {
  const shipped = readFileSync(SHIPPED_POLICY_FILE, 'utf8');
  const grants = readFileSync(join(INJECTION_DIR, 'grants.yaml'), 'utf8');
  const line = /^allowed_services: \[\]$/m;
  if (!line.test(shipped)) {
    throw new Error(`${SHIPPED_POLICY_FILE} no longer has the line 'allowed_services: []'`);
  }
  return shipped.replace(line, () => grants.trim());
}

/** A policy that accepts the flow rules' risk rule by rule (accepting.yaml). */
export function acceptingPolicy(): string {
  return readFileSync(join(INJECTION_DIR, 'accepting.yaml'), 'utf8');
}
