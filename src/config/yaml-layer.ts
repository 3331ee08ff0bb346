import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { readYaml } from '../text/index.js';
import type { ConfigIssue } from './errors.js';
import { isPlainObject } from '../text/index.js';
import { nullAsUnset, type ConfigLayer } from './layer.js';
import { configNodes } from './walk.js';

/**
 * Reads a `caesar.yaml` into a raw config layer whose issues and sources point at
 * `file:line:column`. A key with no value (`null`) counts as not set. `origin` names who
 * asked for the file (`CAESAR_CONFIG`) when that, not the file, should carry a read error.
 */
export async function yamlFileLayer(file: string, origin?: string): Promise<ConfigLayer> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const message = readErrorMessage(file, err);
    const source = origin ?? file;
    return { value: {}, issues: [{ source, path: '', message }], sourceOf: () => source };
  }
  return yamlTextLayer(file, text);
}

/** Parses YAML text named `file` into a layer (exposed for tests and tools that embed config). */
export function yamlTextLayer(file: string, text: string): ConfigLayer {
  const doc = readYaml(text);
  const at = (p: { line: number; column: number }): string => `${file}:${p.line}:${p.column}`;
  const issues: ConfigIssue[] = doc.issues.map((i) => ({
    source: at(i),
    path: '',
    message: i.message,
  }));
  const sourceOf = (path: readonly PropertyKey[], isKey: boolean) =>
    at(
      isKey && path.length > 0
        ? doc.locate(path.slice(0, -1), String(path[path.length - 1]))
        : doc.locate(path),
    );
  const js = doc.value;
  if (issues.length > 0 || js === null || js === undefined) return { value: {}, issues, sourceOf };
  if (!isPlainObject(js)) {
    issues.push({
      source: at({ line: 1, column: 1 }),
      path: '',
      message: 'expected a map of settings at the top level',
    });
    return { value: {}, issues, sourceOf };
  }
  return { value: resolvePaths(nullAsUnset(js), dirname(resolve(file))), issues, sourceOf };
}

/**
 * Relative paths written in a config file are relative to that file's directory, so
 * `--config /etc/caesar/caesar.yaml` with `policy: {file: policy.yaml}` means
 * `/etc/caesar/policy.yaml` whatever the working directory. (Paths from env vars and flags
 * stay relative to the working directory; normalisation resolves those.)
 */
function resolvePaths(value: Record<string, unknown>, base: string): Record<string, unknown> {
  const out = structuredClone(value);
  for (const node of configNodes()) {
    if (node.type !== 'field' || node.kind !== 'path') continue;
    let parent: unknown = out;
    for (const key of node.path.slice(0, -1)) {
      parent = isPlainObject(parent) ? parent[key] : undefined;
    }
    const key = node.path[node.path.length - 1]!;
    if (isPlainObject(parent) && typeof parent[key] === 'string' && parent[key] !== '') {
      parent[key] = resolve(base, parent[key]);
    }
  }
  return out;
}

function readErrorMessage(file: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `config file ${file} does not exist`;
  if (code === 'EISDIR') return `config file ${file} is a directory`;
  return `cannot read config file ${file}: ${(err as Error).message}`;
}
