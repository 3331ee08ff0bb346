import type { ConfigIssue } from './errors.js';
import type { FieldKind } from './fields.js';
import { isPlainObject, UNSET, type ConfigLayer } from './layer.js';
import { closest } from './suggest.js';
import { configNodeAt, configNodes, type ConfigNode } from './walk.js';

/** Names the config file; not a setting. */
export const CONFIG_FILE_ENV = 'CAESAR_CONFIG';
const PREFIX = 'CAESAR_';

type Coerced = { value: unknown } | { problem: string };

/** Turns an env string into the type a key expects; durations and lists stay strings. */
export function coerceEnvValue(kind: FieldKind, raw: string): Coerced {
  const text = raw.trim();
  if (kind === 'integer') {
    return /^[+-]?\d+$/.test(text)
      ? { value: Number(text) }
      : { problem: `expected a whole number, got '${raw}'` };
  }
  if (kind === 'boolean') {
    const lower = text.toLowerCase();
    if (lower === 'true' || lower === '1') return { value: true };
    if (lower === 'false' || lower === '0') return { value: false };
    return { problem: `expected true, false, 1 or 0, got '${raw}'` };
  }
  return { value: raw };
}

interface Assignment {
  name: string;
  path: string[];
}

/**
 * Reads `CAESAR_<SECTION>__<KEY>[__<SUBKEY>…]` vars into a raw config layer. Var names map
 * to lower-cased snake_case paths; an empty value clears the key. A `CAESAR_*` var that
 * names no key is an error, except under `tools`, which is an open map.
 */
export function envLayer(env: Readonly<Record<string, string | undefined>>): ConfigLayer {
  const value: Record<string, unknown> = {};
  const issues: ConfigIssue[] = [];
  const assigned: Assignment[] = [];
  const names = Object.keys(env)
    .filter((n) => n.startsWith(PREFIX) && n !== CONFIG_FILE_ENV)
    .sort();
  for (const name of names) {
    const raw = env[name];
    if (raw === undefined) continue;
    const path = name.slice(PREFIX.length).toLowerCase().split('__');
    const result = readVar(name, path, raw);
    if ('problem' in result) {
      issues.push({ source: name, path: path.join('.'), message: result.problem });
      continue;
    }
    const clash = assigned.find((a) => startsWith(a.path, path) || startsWith(path, a.path));
    if (clash !== undefined) {
      issues.push({ source: name, path: path.join('.'), message: `conflicts with ${clash.name}` });
      continue;
    }
    assign(value, path, result.value);
    assigned.push({ name, path });
  }
  const sourceOf = (p: readonly PropertyKey[]): string => {
    const key = p.map(String);
    const hit = assigned.find((a) => startsWith(a.path, key) || startsWith(key, a.path));
    return hit?.name ?? 'environment';
  };
  return { value, issues, sourceOf };
}

function readVar(name: string, path: string[], raw: string): Coerced {
  if (path.some((p) => p === '')) return { problem: unknownVar(name) };
  if (path[0] === 'tools') {
    if (path.length < 3) {
      const hint = path.length === 1 ? `${name}__<TOOL>__<KEY>` : `${name}__<KEY>`;
      return { problem: `names a section, not a key; set ${hint}` };
    }
    return { value: raw === '' ? UNSET : raw };
  }
  const node = configNodeAt(path);
  if (node === undefined) return { problem: unknownVar(name) };
  if (node.type !== 'field') {
    return { problem: `names a section, not a key; set one of ${childVars(node)}` };
  }
  if (raw === '') return { value: UNSET };
  return coerceEnvValue(node.kind, raw);
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
