/**
 * Env var names as the docs write them, checked against the config schema (issue 29, point 2:
 * docs/llm.md once had the whole system prompt spliced into its env-var list where
 * `__SYSTEM_PROMPT` should be). Two forms are read:
 * - full names, `CAESAR_LLM__MODEL`, anywhere in the text (prose, code spans, shell blocks);
 *   one followed by `<`, `*` or ending in `_` is a prefix (`CAESAR_TOOLS__<TOOL>__<KEY>`,
 *   `CAESAR_HA__*`) and must start some real name;
 * - the shorthand that continues an earlier full name of the same paragraph in a code span,
 *   as in (`CAESAR_LLM__PROVIDER`, `__MODEL`, `__SYSTEM_PROMPT`): `__MODEL` replaces the last
 *   words of `CAESAR_LLM__PROVIDER`, the longest prefix first.
 */
import { z } from 'zod';
import { envTarget } from '../../src/config/env.js';
import { configNodes } from '../../src/config/walk.js';
import { closest, envVarName, isSecretKey, toolSectionPath } from '../../src/text/index.js';
import { loadShippedTools, shippedToolNames } from '../../workers/index.js';

export interface EnvMention {
  /** 1-based line where the name starts. */
  readonly line: number;
  /** The name as written: `CAESAR_LLM__MODEL`, `__SYSTEM_PROMPT`, `CAESAR_HA__`. */
  readonly written: string;
  /** The full name it stands for (a shorthand joined to its base); a prefix keeps its `__`. */
  readonly name: string;
  readonly form: 'full' | 'prefix' | 'short';
}

export interface EnvProblem {
  readonly line: number;
  readonly written: string;
  readonly problem: string;
}

/** A well-formed name: `CAESAR_` then upper-case words joined by `_` or `__`. */
const WELL_FORMED = /^CAESAR_[A-Z0-9]+(?:_{1,2}[A-Z0-9]+)*$/;
/** A shorthand as written: `__` then upper-case words. */
const SHORT_WELL_FORMED = /^__[A-Z0-9]+(?:_{1,2}[A-Z0-9]+)*$/;
const FULL = /(?<![A-Za-z0-9_])CAESAR_[A-Za-z0-9_]*/g;
/** A code span that opens with `__`: a shorthand, when a full name came before it. */
const SHORT = /`(__[A-Za-z0-9_]*)/g;
const BLANK_LINE = /\n[ \t]*\n/;

/** Every env var name a Markdown text writes, with its line. */
export function envMentions(text: string): EnvMention[] {
  const lineAt = lineIndex(text);
  const mentions: (EnvMention & { offset: number })[] = [];
  for (const m of text.matchAll(FULL)) {
    const written = m[0];
    const next = text[m.index + written.length] ?? '';
    const prefix = written.endsWith('_') || next === '<' || next === '*';
    mentions.push({
      offset: m.index,
      line: lineAt(m.index),
      written,
      name: written,
      form: prefix ? 'prefix' : 'full',
    });
  }
  // shorthands open a code span outside fenced blocks; blank the fences (keeping offsets).
  // The span must close right after the name: text run on past it is a value spliced in.
  const prose = text.replace(/^\s*```[^\n]*\n[\s\S]*?^\s*```[^\n]*$/gm, (b) =>
    b.replace(/[^\n]/g, ' '),
  );
  for (const m of prose.matchAll(SHORT)) {
    const head = m[1]!;
    if (head === '__') continue;
    const at = m.index + 1;
    const base = mentions
      .filter(
        (f) => f.form === 'full' && f.offset < at && !BLANK_LINE.test(text.slice(f.offset, at)),
      )
      .at(-1);
    if (base === undefined) continue; // `__proto__` and the like: not a name
    const written = prose[at + head.length] === '`' ? head : `${head}…`;
    mentions.push({ offset: at, line: lineAt(at), written, name: base.name, form: 'short' });
  }
  return mentions.sort((a, b) => a.offset - b.offset).map(({ offset: _offset, ...rest }) => rest);
}

/**
 * Names the docs may write that are not settings, each with the file that gives it meaning
 * (the test checks that file still names it, so the list cannot outlive its reason).
 */
export const NOT_SETTINGS: Readonly<Record<string, string>> = Object.freeze({
  CAESAR_CONFIG: 'src/config/env.ts', // names the config file
  CAESAR_BRAIN_KEY: 'src/cli/commands/nats-compose.run.ts', // compose's .env
  CAESAR_WORKER_KEYS: 'src/cli/commands/nats-compose.run.ts',
  CAESAR_UID: 'src/cli/commands/nats-compose.run.ts',
  CAESAR_GID: 'src/cli/commands/nats-compose.run.ts',
  CAESAR_TOKEN: 'docs/openai-compat.md', // a shell variable its examples set
  CAESAR_X: 'src/config/reference.ts', // placeholders of the generated rules
  CAESAR_X_FILE: 'src/config/reference.ts',
  CAESAR_TOOLS__X__: 'docs/adr/0044-one-secret-rule.md',
});

/** The keys each shipped tool reads, by config section (`web_search`, `calendar`, `ha`). */
async function shippedToolKeys(): Promise<Map<string, Set<string>>> {
  const keys = new Map<string, Set<string>>();
  for (const def of await loadShippedTools(shippedToolNames())) {
    if (def.config === undefined) continue;
    const schema = z.toJSONSchema(def.config, { io: 'input', unrepresentable: 'any' });
    const set = keys.get(def.configSection) ?? new Set<string>();
    for (const k of Object.keys((schema as { properties?: object }).properties ?? {})) set.add(k);
    keys.set(def.configSection, set);
  }
  return keys;
}

/** Judges names against the config schema and the shipped tools' config schemas. */
export interface EnvNameChecker {
  /** Every real name: settings, their `_FILE` forms, the shipped tools' keys. */
  readonly known: readonly string[];
  /** Why `name` names no setting, with the closest real one; undefined when it does. */
  problemWith(mention: EnvMention): string | undefined;
}

export async function envNameChecker(): Promise<EnvNameChecker> {
  const toolKeys = await shippedToolKeys();
  const known = new Set<string>();
  const sections = new Set<string>();
  for (const n of configNodes()) {
    if (n.type !== 'field') {
      sections.add(n.env);
      continue;
    }
    known.add(n.env);
    if (n.meta.secret === true) known.add(`${n.env}_FILE`);
  }
  for (const [section, keys] of toolKeys) {
    sections.add(envVarName(toolSectionPath(section)));
    for (const k of keys) {
      const env = envVarName([...toolSectionPath(section), k]);
      known.add(env);
      if (isSecretKey(k)) known.add(`${env}_FILE`);
    }
  }
  const knownList = [...known, ...Object.keys(NOT_SETTINGS)].sort();

  /** The key a `CAESAR_TOOLS__<SECTION>__…` name sets in a shipped tool's section. */
  const shippedToolProblem = (name: string): string | undefined => {
    const path = name.slice('CAESAR_'.length).toLowerCase().split('__');
    if (path[0] !== 'tools' || path.length < 3) return undefined;
    const keys = toolKeys.get(path[1]!);
    if (keys === undefined) return undefined; // an operator's own tool: any key
    const key = path.slice(2).join('__');
    const base = key.endsWith('_file') ? key.slice(0, -'_file'.length) : undefined;
    if (keys.has(key) || (base !== undefined && keys.has(base) && isSecretKey(base)))
      return undefined;
    return `the ${path[1]} tool reads no key '${key}'`;
  };

  /** `CAESAR_BUS__`, `CAESAR_LLM__OPENAI__`: every real name cut after one of its `__`. */
  const prefixes = [
    ...new Set(
      knownList.flatMap((k) =>
        k
          .split('__')
          .slice(0, -1)
          .map((_, i, w) => `${w.slice(0, i + 1).join('__')}__`),
      ),
    ),
  ];
  const suggest = (name: string, among: readonly string[] = knownList): string => {
    let hint = closest(name, among);
    // a name with text run into it (`CAESAR_LLM__SYSTEM_You are…`): the longest real start
    const head = /^[A-Z0-9_]*/.exec(name)?.[0] ?? '';
    for (let n = head.length; hint === undefined && n > 'CAESAR_'.length; n--) {
      hint = among.find((k) => k.startsWith(head.slice(0, n)));
    }
    return hint === undefined ? '' : ` (closest real name: ${hint})`;
  };

  const fullProblem = (name: string): string | undefined => {
    if (Object.hasOwn(NOT_SETTINGS, name)) return undefined;
    if (!WELL_FORMED.test(name)) return `is not a well-formed env var name${suggest(name)}`;
    const target = envTarget(name);
    const problem = 'problem' in target ? target.problem : shippedToolProblem(name);
    if (problem === undefined) return undefined;
    // the loader's own "unknown setting (did you mean …)" says less than the line below
    const why = problem.startsWith('unknown setting') ? '' : `: ${problem}`;
    return `names no setting${why}${suggest(name)}`;
  };

  return {
    known: knownList,
    problemWith(m) {
      if (m.form === 'full') return fullProblem(m.name);
      if (m.form === 'prefix') {
        if (Object.hasOwn(NOT_SETTINGS, m.name) || m.name === 'CAESAR_') return undefined;
        const starts = (n: string): boolean => n.startsWith(m.name) || `${n}__` === m.name;
        if (knownList.some(starts) || [...sections].some(starts)) return undefined;
        // a prefix of an operator's own tool section: CAESAR_TOOLS__WEATHER__
        if (/^CAESAR_TOOLS__[A-Z0-9_]+__$/.test(m.name)) return undefined;
        return `starts no setting's name${suggest(m.name, prefixes)}`;
      }
      const words = m.name.split('__');
      if (!SHORT_WELL_FORMED.test(m.written)) {
        const head = /^[A-Z0-9_]*/.exec(m.written)?.[0] ?? '';
        return `is not a well-formed env var name${suggest(`${words.slice(0, -1).join('__')}${head}`)}`;
      }
      // `__MODEL` after `CAESAR_LLM__PROVIDER`: the longest prefix that makes a real name
      const tries = words
        .slice(1)
        .map((_, i) => `${words.slice(0, words.length - 1 - i).join('__')}${m.written}`);
      if (tries.some((t) => fullProblem(t) === undefined)) return undefined;
      return `continues ${m.name} but ${tries.join(', ')} name no setting${suggest(tries[0]!)}`;
    },
  };
}

/** Every problem with the env var names of one Markdown text. */
export function envNameProblems(checker: EnvNameChecker, text: string): EnvProblem[] {
  const problems: EnvProblem[] = [];
  for (const m of envMentions(text)) {
    const problem = checker.problemWith(m);
    if (problem !== undefined) problems.push({ line: m.line, written: m.written, problem });
  }
  return problems;
}

function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}
