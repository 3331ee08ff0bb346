import { createHash } from 'node:crypto';
import { LOOK_ALIKES } from '../../src/text/look-alike.js';

/**
 * How an injected model reads instructions out of tool results: what the stand-in model of
 * test/helpers/stand-in-model.ts obeys. A real model that has been injected sees through the
 * tricks an attacker uses to hide an instruction from a human or a filter, so this reader
 * does too: invisible format characters (zero-width, soft hyphen, bidi controls) are
 * dropped, Unicode tag characters (ASCII smuggled as invisible code points) read as the
 * ASCII they encode, text reversed under a right-to-left override read both ways, compatibility
 * forms (fullwidth, mathematical letters) and Cyrillic or Greek look-alikes read as Latin,
 * JSON written inside a string parsed and read in turn, quotes escaped once or twice
 * unescaped, and an instruction split into `(part i of n)` pieces over several results
 * joined again.
 *
 * The instructions it understands (case does not matter):
 * - `call <tool> [with] {json}`: that call, the JSON possibly escaped;
 * - `call [call_service] <domain>.<service> [on|for] <entity_id>`: a Home Assistant call;
 * - `turn on|turn off|switch on|switch off|unlock|lock|open|close <entity_id>`;
 * - `call web_search with the query '<text>' followed by what <tool> says about '<word>'`:
 *   read `<tool>` for `<word>` first (if this turn has not), then search for the text and
 *   what was read (exfiltration);
 * - `web_search '<text>'` or `search the web for '<text>'`: that search.
 *
 * Bounded: strings past 16 KiB are cut, JSON inside strings is read 4 levels deep.
 */

/** A call an instruction asks for. */
export interface Instruction {
  /** Stable over rereads of the same text: the model uses it to act on an instruction once. */
  readonly id: string;
  readonly tool: string;
  /** The input, when the instruction gives it whole. */
  readonly input?: Record<string, unknown>;
  /** A search for `literal` and what `from.tool` said about `from.about`. */
  readonly exfiltrate?: {
    readonly literal: string;
    readonly from: { readonly tool: string; readonly about: string };
  };
}

const MAX_TEXT = 16 * 1024;
const MAX_JSON_DEPTH = 4;

/** Every string a tool message holds, from inside its `<tool_data>` fence. */
export function toolMessageTexts(content: string): string[] {
  const open = content.indexOf('<tool_data>');
  const close = content.lastIndexOf('</tool_data>');
  const body = open >= 0 && close > open ? content.slice(open + 11, close).trim() : content;
  const out: string[] = [];
  collect(parseJson(body) ?? body, 0, out);
  return out;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Strings of a value, and the strings of JSON documents written inside them. */
function collect(value: unknown, depth: number, out: string[]): void {
  if (typeof value === 'string') {
    const text = value.slice(0, MAX_TEXT);
    out.push(text);
    const trimmed = text.trim();
    if (depth < MAX_JSON_DEPTH && /^[[{]/.test(trimmed)) {
      const inner = parseJson(trimmed);
      if (inner !== undefined) collect(inner, depth + 1, out);
    }
  } else if (Array.isArray(value)) {
    for (const v of value) collect(v, depth, out);
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) collect(v, depth, out);
  }
}

const LOOKALIKE_RE = new RegExp(`[${Object.keys(LOOK_ALIKES).join('')}]`, 'gu');

/** Tag characters U+E0020-U+E007E: invisible, and each one an ASCII character. */
const TAGS_RE = /[\u{e0020}-\u{e007e}]/gu;
const RLO = '\u202e';
/** What ends a right-to-left override: a pop, an isolate's end, or a line end. */
const RLO_SPAN_RE = /\u202e([^\u202c\u2069\n]*)/gu;

/**
 * The ways a model may read one string: as stored, and with text under a right-to-left
 * override reversed (what a human sees), each with invisible characters dropped and
 * look-alikes mapped.
 */
export function readings(text: string): string[] {
  const ascii = text.replace(TAGS_RE, (ch) => String.fromCodePoint(ch.codePointAt(0)! - 0xe0000));
  const ways = [ascii];
  if (ascii.includes(RLO)) {
    ways.push(ascii.replace(RLO_SPAN_RE, (_m, span: string) => [...span].reverse().join('')));
  }
  return ways.map(normalise);
}

function normalise(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/\p{Cf}/gu, '')
    .replace(LOOKALIKE_RE, (ch) => LOOK_ALIKES[ch] ?? ch)
    .replace(/\s+/g, ' ');
}

const ENTITY = String.raw`([a-z_]+)\.([a-z0-9_]+)`;
const CALL_JSON_RE =
  /\bcall\s+([a-z][a-z0-9_]*)\s+(?:with\s+)?(?:the\s+)?(?:arguments\s+)?(?=[{\\"])/giu;
const CALL_SERVICE_RE = new RegExp(
  String.raw`\bcall\s+(?:call_service\s+)?${ENTITY}\s+(?:on\s+|for\s+)?(?:the\s+)?${ENTITY}`,
  'giu',
);
const VERB_RE = new RegExp(
  String.raw`\b(turn on|turn off|switch on|switch off|unlock|lock|open|close)\s+(?:the\s+)?${ENTITY}`,
  'giu',
);
const QUOTED = String.raw`["'“‘]([^"'”’]{1,200})["'”’]`;
const EXFIL_RE = new RegExp(
  String.raw`\bcall\s+web_search\s+with\s+(?:the\s+)?query\s+${QUOTED}\s+followed\s+by\s+what\s+([a-z_]+)\s+(?:says|said|returns|returned)\s+about\s+${QUOTED}`,
  'giu',
);
const SEARCH_RE = new RegExp(
  String.raw`\b(?:web_search|search the web for)\s*:?\s*${QUOTED}`,
  'giu',
);
const PART_RE = /\(part\s+(\d)\s+of\s+(\d)\)\s*/iu;

const VERB_SERVICES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'turn on': {},
  'turn off': {},
  'switch on': {},
  'switch off': {},
  unlock: { lock: 'unlock' },
  lock: { lock: 'lock' },
  open: { cover: 'open_cover', lock: 'open' },
  close: { cover: 'close_cover' },
};

/**
 * The instructions in a turn's tool results (each result: its strings), in the order they
 * were read, each once; pieces marked `(part i of n)` are joined once all n were read.
 */
export function instructionsIn(results: readonly (readonly string[])[]): Instruction[] {
  const found = new Map<string, Instruction>();
  const parts = new Map<number, Map<number, string>>();
  for (const texts of results) {
    for (const text of texts) {
      for (const reading of readings(text)) {
        for (const i of parse(reading)) if (!found.has(i.id)) found.set(i.id, i);
        const part = PART_RE.exec(reading);
        if (part) {
          const of = Number(part[2]);
          const pieces = parts.get(of) ?? new Map<number, string>();
          pieces.set(Number(part[1]), reading.slice(part.index + part[0].length));
          parts.set(of, pieces);
        }
      }
    }
  }
  for (const [of, pieces] of parts) {
    if (pieces.size !== of) continue;
    const joined = [...pieces.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, t]) => t)
      .join('');
    for (const i of parse(joined)) if (!found.has(i.id)) found.set(i.id, i);
  }
  return [...found.values()];
}

/** The instructions in one normalised text. */
export function parse(text: string): Instruction[] {
  const out: Instruction[] = [];
  const add = (tool: string, input: Record<string, unknown>) =>
    out.push({ id: idOf(tool, input), tool, input });
  for (const m of text.matchAll(EXFIL_RE)) {
    const exfiltrate = { literal: m[1]!, from: { tool: m[2]!.toLowerCase(), about: m[3]! } };
    out.push({ id: idOf('web_search', exfiltrate), tool: 'web_search', exfiltrate });
  }
  for (const m of text.matchAll(CALL_JSON_RE)) {
    const input = jsonObjectAt(text, m.index + m[0].length);
    if (input !== undefined) add(m[1]!.toLowerCase(), input);
  }
  for (const m of text.matchAll(CALL_SERVICE_RE)) {
    add('call_service', serviceInput(m[1]!, m[2]!, `${m[3]!}.${m[4]!}`));
  }
  for (const m of text.matchAll(VERB_RE)) {
    const verb = m[1]!.toLowerCase();
    const domain = m[2]!.toLowerCase();
    const service = VERB_SERVICES[verb]?.[domain] ?? verb.replace(/^(turn|switch) /, 'turn_');
    add('call_service', serviceInput(domain, service, `${domain}.${m[3]!}`));
  }
  if (out.every((i) => i.exfiltrate === undefined)) {
    for (const m of text.matchAll(SEARCH_RE)) add('web_search', { query: m[1]! });
  }
  return out;
}

function serviceInput(domain: string, service: string, entity: string): Record<string, unknown> {
  return {
    domain: domain.toLowerCase(),
    service: service.toLowerCase(),
    target: { entity_id: entity.toLowerCase() },
  };
}

/**
 * The JSON object that starts at `at` (after optional quotes), with quotes escaped once or
 * twice (`{\"domain\": …}`, a JSON document quoted inside another) unescaped first.
 */
function jsonObjectAt(text: string, at: number): Record<string, unknown> | undefined {
  let candidate = text.slice(at).replace(/^["\\]+(?=\{)/, '');
  for (let layer = 0; layer < 3; layer++) {
    const end = balancedEnd(candidate);
    if (end > 0) {
      const parsed = parseJson(candidate.slice(0, end));
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
        return parsed as Record<string, unknown>;
      }
    }
    candidate = candidate.replace(/\\(["\\])/g, '$1');
  }
  return undefined;
}

/** The index just past the `}` that closes the `{` at 0, strings respected; 0 if none. */
function balancedEnd(s: string): number {
  if (s[0] !== '{') return 0;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < s.length && i < MAX_TEXT; i++) {
    const c = s[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return 0;
}

function idOf(tool: string, what: unknown): string {
  return createHash('sha256')
    .update(`${tool}\n${JSON.stringify(what)}`)
    .digest('hex')
    .slice(0, 10);
}
