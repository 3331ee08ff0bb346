import { resolve } from 'node:path';
import type { ConfigIssue } from './errors.js';
import type { FieldKind } from './fields.js';
import { isPlainObject } from '../text/index.js';
import { UNSET, type ConfigLayer } from './layer.js';
import { readSecretFile } from './secret-file.js';
import { closest, isSecretKey } from '../text/index.js';
import { configNodeAt, configNodes, type ConfigNode } from './walk.js';

/** Names the config file; not a setting. */
export const CONFIG_FILE_ENV = 'CAESAR_CONFIG';
const PREFIX = 'CAESAR_';
/** `CAESAR_BUS__TOKEN_FILE`: the value of `bus.token` is in the file the var names. */
const FILE_SUFFIX = '_file';

type Coerced = { value: unknown } | { problem: string };

/** Turns an env string into the type a key expects; durations and lists stay strings. */
export function coerceEnvValue(kind: FieldKind, raw: string): Coerced {
  const text = raw.trim();
  if (kind === 'integer') {
    return /^[+-]?\d+$/.test(text)
      ? { value: Number(text) }
      : { problem: `expected a whole number, got '${raw}'` };
  }
  if (kind === 'number') {
    return /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/.test(text)
      ? { value: Number(text) }
      : { problem: `expected a number such as 0.7, got '${raw}'` };
  }
  if (kind === 'boolean') {
    const lower = text.toLowerCase();
    if (lower === 'true' || lower === '1') return { value: true };
    if (lower === 'false' || lower === '0') return { value: false };
    return { problem: `expected true, false, 1 or 0, got '${raw}'` };
  }
  return { value: raw };
}

/**
 * A top-level section (`ha`) as a tool may be handed it directly, its values still the
 * strings of an environment: each string is read the way its `CAESAR_<SECTION>__<KEY>` var
 * is ({@link coerceEnvValue}: `"10"`, `"false"`, `"0"`), trimmed, and a blank one is unset.
 * A string the var would refuse is left as it is, for the schema to refuse. Anything that is
 * not a map of keys is returned unchanged.
 */
export function sectionFromEnvStrings(section: string, value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== 'string') {
      out[key] = v;
      continue;
    }
    const text = v.trim();
    if (text === '') continue;
    const node = configNodeAt([section, key]);
    const coerced = node?.type === 'field' ? coerceEnvValue(node.kind, text) : { value: text };
    out[key] = 'value' in coerced ? coerced.value : v;
  }
  return out;
}

/** What one `CAESAR_*` var sets: a key, or (`fromFile`) a secret key read from a file. */
type EnvTarget =
  | {
      /** snake_case key path, such as `['bus', 'token']`. */
      readonly path: readonly string[];
      /** The var names a file that holds the value (`CAESAR_BUS__TOKEN_FILE`). */
      readonly fromFile: boolean;
      /** How to read the value; absent under `tools` (values stay strings). */
      readonly kind?: FieldKind;
    }
  | { readonly problem: string; readonly path: readonly string[] };

/**
 * Maps a var name to the key it sets: `CAESAR_<SECTION>__<KEY>[__<SUBKEY>…]`, lower-cased.
 * `…_FILE` reads a secret key's value from a file, unless the name is itself a key
 * (`CAESAR_BUS__NKEY_SEED_FILE` is `bus.nkey_seed_file`). Under `tools` (an open map),
 * `<KEY>_FILE` is a file only when `<key>` looks like a credential (`api_key`, `token`,
 * `password`, ...); any other name is a key as written.
 */
export function envTarget(name: string): EnvTarget {
  const path = name.slice(PREFIX.length).toLowerCase().split('__');
  if (!name.startsWith(PREFIX) || path.some((p) => p === '')) {
    return { problem: unknownVar(name), path };
  }
  const node = configNodeAt(path);
  // under `tools` only its own keys (`tools.limits.*`) are read as typed; the rest stay strings
  if (path[0] === 'tools' && node?.type !== 'field') return toolsTarget(name, path);
  if (node?.type === 'field') return { path, fromFile: false, kind: node.kind };
  if (node !== undefined) {
    return { problem: `names a section, not a key; set one of ${childVars(node)}`, path };
  }
  const base = withoutFileSuffix(path);
  const baseNode = base === undefined ? undefined : configNodeAt(base);
  if (base !== undefined && baseNode?.type === 'field') {
    if (baseNode.meta.secret === true) return { path: base, fromFile: true, kind: baseNode.kind };
    return { problem: `${baseNode.env} is not a secret; only ${secretFileVars()}`, path };
  }
  return { problem: unknownVar(name), path };
}

function toolsTarget(name: string, path: string[]): EnvTarget {
  if (path.length < 3) {
    const hint = path.length === 1 ? `${name}__<TOOL>__<KEY>` : `${name}__<KEY>`;
    return { problem: `names a section, not a key; set ${hint}`, path };
  }
  const base = withoutFileSuffix(path);
  const key = base?.at(-1);
  if (base !== undefined && key !== undefined && isSecretKey(key)) {
    return { path: base, fromFile: true };
  }
  return { path, fromFile: false };
}

/** `['bus', 'token_file']` -> `['bus', 'token']`; undefined when there is no `_file`. */
function withoutFileSuffix(path: readonly string[]): string[] | undefined {
  const last = path.at(-1) ?? '';
  if (!last.endsWith(FILE_SUFFIX) || last.length === FILE_SUFFIX.length) return undefined;
  return [...path.slice(0, -1), last.slice(0, -FILE_SUFFIX.length)];
}

function secretFileVars(): string {
  const names = configNodes()
    .filter((n) => n.type === 'field' && n.meta.secret === true)
    .map((n) => `${n.env}_FILE`);
  return `secret keys may be read from a file (${names.join(', ')}, or a credential under CAESAR_TOOLS__<TOOL>__)`;
}

interface Planned {
  readonly name: string;
  readonly raw: string;
  readonly path: readonly string[];
  readonly fromFile: boolean;
  readonly kind?: FieldKind;
}

interface Assignment extends Planned {
  /** Absolute path of the file the value was read from. */
  readonly file?: string;
}

/**
 * Reads `CAESAR_<SECTION>__<KEY>[__<SUBKEY>…]` vars into a raw config layer (see
 * {@link envTarget}). An empty value clears the key. `…_FILE` values are read from the named
 * file, relative to `cwd`. A `CAESAR_*` var that names no key is an error, except under
 * `tools`, which is an open map; so are two vars for one key.
 */
export async function envLayer(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Promise<ConfigLayer> {
  const issues: ConfigIssue[] = [];
  const planned = planVars(env, issues);
  const read = await Promise.all(planned.map((p) => readAssignment(p, cwd)));
  const value: Record<string, unknown> = {};
  const assigned: Assignment[] = [];
  for (const [i, result] of read.entries()) {
    const plan = planned[i]!;
    if ('problem' in result) {
      issues.push({ source: plan.name, path: plan.path.join('.'), message: result.problem });
      continue;
    }
    assign(value, plan.path, result.value);
    assigned.push({ ...plan, ...(result.file === undefined ? {} : { file: result.file }) });
  }
  const owner = (p: readonly PropertyKey[]): Assignment | undefined => {
    const key = p.map(String);
    return assigned.find((a) => startsWith(a.path, key) || startsWith(key, a.path));
  };
  return {
    value,
    issues,
    sourceOf: (p) => owner(p)?.name ?? 'environment',
    originOf: (p) => {
      const hit = owner(p);
      if (hit === undefined) return 'environment';
      return hit.file === undefined ? `env ${hit.name}` : `env ${hit.name} -> ${hit.file}`;
    },
  };
}

/** Maps each var to its key, reporting unknown names and two vars for one key. */
function planVars(
  env: Readonly<Record<string, string | undefined>>,
  issues: ConfigIssue[],
): Planned[] {
  const planned: Planned[] = [];
  const names = Object.keys(env)
    .filter((n) => n.startsWith(PREFIX) && n !== CONFIG_FILE_ENV)
    .sort();
  for (const name of names) {
    const raw = env[name];
    if (raw === undefined) continue;
    const target = envTarget(name);
    if ('problem' in target) {
      issues.push({ source: name, path: target.path.join('.'), message: target.problem });
      continue;
    }
    const { path } = target;
    const clash = planned.find((a) => startsWith(a.path, path) || startsWith(path, a.path));
    if (clash !== undefined) {
      const same = clash.path.length === path.length;
      const message = same
        ? `set only one of ${clash.name} and ${name}`
        : `conflicts with ${clash.name}`;
      issues.push({ source: name, path: path.join('.'), message });
      continue;
    }
    planned.push({ name, raw, ...target });
  }
  return planned;
}

type AssignmentValue = { value: unknown; file?: string } | { problem: string };

async function readAssignment(plan: Planned, cwd: string): Promise<AssignmentValue> {
  if (plan.raw === '') return { value: UNSET };
  if (!plan.fromFile)
    return plan.kind === undefined ? { value: plan.raw } : coerceEnvValue(plan.kind, plan.raw);
  const file = resolve(cwd, plan.raw);
  const read = await readSecretFile(file);
  if ('problem' in read) return read;
  if (plan.kind === undefined) return { value: read.value, file };
  const coerced = coerceEnvValue(plan.kind, read.value);
  // The coercion message quotes the value; a secret's must not reach an error.
  if ('problem' in coerced)
    return { problem: `secret file ${file} does not hold a valid ${plan.kind}` };
  return { value: coerced.value, file };
}

function childVars(node: ConfigNode): string {
  if (node.type === 'map') return `${node.env}__<TOOL>__<KEY>`;
  if (node.type !== 'section') return node.env;
  return node.children.map((c) => c.env).join(', ');
}

function unknownVar(name: string): string {
  const known = configNodes()
    .filter((n) => n.type === 'field')
    .map((n) => n.env);
  const hint = closest(name, known);
  return hint === undefined ? 'unknown setting' : `unknown setting (did you mean ${hint}?)`;
}

/** Sets `path` in `target`, creating maps on the way (callers rule out clashes first). */
function assign(target: Record<string, unknown>, path: readonly string[], v: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (!isPlainObject(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path.at(-1) ?? ''] = v;
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((p, i) => path[i] === p);
}
