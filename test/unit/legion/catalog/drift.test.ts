import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../../../src/legion/index.js';
import { describeDrift, driftOf } from '../../../../src/legion/catalog/drift.js';
import { entryOfSpec, mcpEntry, plannedEntry } from '../../../../src/legion/catalog/entry.js';
import type { ToolSpec } from '../../../../src/protocol/index.js';

function spec(over: { tags?: string[]; version?: string; description?: string } = {}): ToolSpec {
  return defineTool({
    name: 'weather',
    version: over.version ?? '1.0.0',
    description: over.description ?? 'Current weather for a city. Example: {"city": "Lyon"}.',
    tags: over.tags ?? ['tool', 'web'],
    capabilities: ['current_weather'],
    input: z.strictObject({ city: z.string() }),
    output: z.strictObject({ text: z.string() }),
    annotations: { readOnly: true, openWorld: true },
    executionLocality: 'remote_api',
    resourceRequirements: { cpu: 'low', memory_mb: 64, network: true },
    handler: () => ({ text: 'sunny' }),
  }).spec;
}

const entry = entryOfSpec(spec(), { module: '/tools/weather.js', location: 'path' });

describe('driftOf', () => {
  test('an entry made from the spec has not drifted', () => {
    expect(driftOf(entry, spec())).toEqual([]);
  });

  test('changed tags are named with both values', () => {
    const [d] = driftOf(entry, spec({ tags: ['tool', 'web', 'home'] }));
    expect(describeDrift(d!)).toBe(
      "entry 'weather': tags differ: catalog [tool, web], module [tool, web, home]",
    );
  });

  test('tags in another order are the same tags', () => {
    expect(driftOf(entry, spec({ tags: ['web', 'tool'] }))).toEqual([]);
  });

  test('a new version is named with both values', () => {
    const [d] = driftOf(entry, spec({ version: '1.1.0' }));
    expect(describeDrift(d!)).toBe("entry 'weather': version differs: catalog 1.0.0, module 1.1.0");
  });

  test('any other change shows in the spec digest', () => {
    const drifts = driftOf(entry, spec({ description: 'Weather now, for a city.' }));
    expect(drifts.map((d) => d.field)).toEqual(['spec_sha256']);
  });

  test("a capability the spec does not declare is Colony's ToolEntrySpecMismatch", () => {
    const [d] = driftOf({ ...entry, capability: 'forecast' }, spec());
    expect(describeDrift(d!)).toBe(
      "entry 'weather': capability is not among the spec's: catalog forecast, module [current_weather]",
    );
  });

  test('a module that no longer defines the tool', () => {
    expect(driftOf(entry, undefined).map((d) => d.field)).toEqual(['tool']);
  });

  test('a planned stub never drifts', () => {
    expect(driftOf(plannedEntry('weather', 'Weather.'), undefined)).toEqual([]);
  });
});

test('an mcp entry never drifts: its tools are the server’s to change (ADR 0095)', () => {
  const entry = mcpEntry(
    { name: 'files', version: '0.2.0', description: 'Files.' },
    { url: 'https://mcp.example.org/mcp' },
  );
  expect(driftOf(entry, undefined)).toEqual([]);
});
