import { describe, expect, test } from 'vitest';
import { SchemaValidator } from '../../../src/json-schema/index.js';
import type { ToolSpec } from '../../../src/protocol/index.js';

/** A spec whose output schema is what a worker announced: only the schemas matter here. */
function specWith(outputPattern: string): ToolSpec {
  return {
    input_schema: { type: 'object' },
    output_schema: {
      type: 'object',
      properties: { text: { type: 'string', pattern: outputPattern } },
    },
  } as unknown as ToolSpec;
}

describe('SchemaValidator', () => {
  test('a pattern a worker announced runs on RE2: a backtracking bomb is checked by steps, not seconds', () => {
    const v = new SchemaValidator();
    // On JavaScript's backtracking engine this pair takes minutes (2^40 paths).
    const spec = specWith('^(\\w+\\s?)*$');
    const started = process.cpuUsage();
    const check = v.checkOutput(spec, 'sha-bomb', { text: `${'a'.repeat(40)}!` });
    const cpuMs = (process.cpuUsage(started).user + process.cpuUsage(started).system) / 1000;
    expect(check.ok).toBe(false);
    // RE2 is linear: well under a second of CPU even on a loaded Raspberry Pi
    expect(cpuMs).toBeLessThan(1000);
  });

  test('patterns keep JSON Schema meaning: unanchored search, anchors when written', () => {
    const v = new SchemaValidator();
    expect(v.checkOutput(specWith('b+'), 'sha-a', { text: 'abbc' }).ok).toBe(true);
    expect(v.checkOutput(specWith('^b+$'), 'sha-b', { text: 'abbc' }).ok).toBe(false);
    expect(v.checkOutput(specWith('^[a-z0-9_]+$'), 'sha-c', { text: 'light_1' }).ok).toBe(true);
  });

  test('a pattern RE2 cannot run (lookaround) makes the schema unusable, naming why', () => {
    const v = new SchemaValidator();
    const check = v.checkOutput(specWith('^(?=a)a$'), 'sha-look', { text: 'a' });
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.problems[0]?.message).toMatch(
      /tool schema unusable: pattern "\^\(\?=a\)a\$" is not RE2 syntax/,
    );
  });
});
