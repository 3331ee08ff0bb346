import { dirname, posix } from 'node:path';
import { expect, test } from 'vitest';
import { productSources } from '../helpers/sources.js';

// Issue 30: docs/architecture.md, "Modules and their direction", is this list. A folder may
// import only folders on a LOWER layer (and itself); folders on one layer stand apart. Lowest
// first. A folder is `src/<name>`, `src/brain/<name>`, `src/clients/<name>` or `workers/<tool>`.
export const LAYERS: readonly (readonly string[])[] = [
  // node: built-ins and parsing libraries only
  ['src/text', 'src/clock', 'src/files', 'src/process'],
  ['src/errors'],
  ['src/log'],
  ['src/protocol'],
  ['src/config', 'src/json-schema'],
  ['src/bus', 'src/policy', 'src/audit'],
  ['src/legion'],
  ['src/clients/home-assistant'],
  [
    'workers/calculator',
    'workers/calendar_read',
    'workers/call_service',
    'workers/dns_lookup',
    'workers/ha_entities',
    'workers/web_search',
  ],
  // one tool whose actions are two of the tools above (ADR 0093)
  ['workers/home_assistant'],
  // the shipped tools' list
  ['workers/index.ts'],
  ['src/brain/api', 'src/brain/conversations', 'src/brain/dispatch'],
  [
    'src/brain/registry',
    'src/brain/intents',
    'src/brain/http',
    'src/brain/preflight',
    'src/brain/jobs',
  ],
  ['src/brain/gateway'],
  ['src/brain/agent'],
  // the model providers implement the agent's Planner port
  ['src/brain/llm'],
  ['src/brain/audit-trail', 'src/brain/capabilities'],
  ['src/brain/daemon'],
  ['src/cli'],
];

/** The layer folder a repo path belongs to, or undefined (outside src/ and workers/). */
export function folderOf(file: string): string | undefined {
  const parts = file.split('/');
  if (parts[0] === 'workers') {
    return parts.length > 2 ? parts.slice(0, 2).join('/') : file.replace(/\.js$/, '.ts');
  }
  if (parts[0] !== 'src' || parts.length < 3) return undefined;
  if ((parts[1] === 'brain' || parts[1] === 'clients') && parts.length > 3) {
    return parts.slice(0, 3).join('/');
  }
  return parts.slice(0, 2).join('/');
}

const RANK = new Map<string, number>(LAYERS.flatMap((layer, i) => layer.map((f) => [f, i])));

// static imports, re-exports and import() of a relative module (as the surface test reads them)
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

interface Edge {
  file: string;
  spec: string;
  from: string;
  to: string;
}

function edges(): Edge[] {
  const out: Edge[] = [];
  for (const { file, text } of productSources()) {
    const from = folderOf(file);
    if (from === undefined) continue;
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? '';
      const to = folderOf(posix.normalize(posix.join(dirname(file), spec)));
      if (to !== undefined && to !== from) out.push({ file, spec, from, to });
    }
  }
  return out;
}

/** The rule an import breaks, in words, or undefined when it keeps the layering. */
export function broken(e: Edge): string | undefined {
  const a = RANK.get(e.from);
  const b = RANK.get(e.to);
  if (a === undefined)
    return `${e.from} is on no layer: add it to LAYERS (test/unit/layers.test.ts)`;
  if (b === undefined) return `${e.to} is on no layer: add it to LAYERS (test/unit/layers.test.ts)`;
  if (b > a) return `${e.from} (layer ${a}) imports ${e.to} (layer ${b}): an import runs up`;
  if (b === a) return `${e.from} and ${e.to} share layer ${a}: folders on one layer stand apart`;
  return undefined;
}

test('every folder is on a layer, and no import runs up or sideways', () => {
  const all = edges();
  expect(all.length).toBeGreaterThan(200);
  const faults = all.flatMap((e) => {
    const why = broken(e);
    return why === undefined ? [] : [`${e.file}: import '${e.spec}': ${why}`];
  });
  expect(faults).toEqual([]);
});

test('the folders import each other in no cycle', () => {
  const next = new Map<string, Set<string>>();
  for (const e of edges()) {
    if (!next.has(e.from)) next.set(e.from, new Set());
    next.get(e.from)?.add(e.to);
  }
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const walk = (node: string, path: string[]): void => {
    state.set(node, 'open');
    for (const to of next.get(node) ?? []) {
      if (state.get(to) === 'open') cycles.push([...path.slice(path.indexOf(to)), to].join(' -> '));
      else if (state.get(to) === undefined) walk(to, [...path, to]);
    }
    state.set(node, 'done');
  };
  for (const node of next.keys()) if (state.get(node) === undefined) walk(node, [node]);
  expect(cycles).toEqual([]);
});

test('the rule fails an upward import and a sibling import, naming both folders', () => {
  const up = {
    file: 'src/policy/x.ts',
    spec: '../brain/api/index.js',
    from: 'src/policy',
    to: 'src/brain/api',
  };
  expect(broken(up)).toMatch(
    /src\/policy \(layer \d+\) imports src\/brain\/api \(layer \d+\): an import runs up/,
  );
  const side = {
    file: 'src/audit/x.ts',
    spec: '../policy/index.js',
    from: 'src/audit',
    to: 'src/policy',
  };
  expect(broken(side)).toMatch(/share layer/);
  const down = {
    file: 'src/brain/agent/x.ts',
    spec: '../llm/index.js',
    from: 'src/brain/agent',
    to: 'src/brain/llm',
  };
  expect(broken(down)).toMatch(/runs up/);
});
