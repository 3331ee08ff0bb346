import { describe, expect, test } from 'vitest';
import {
  annotationsOfMcp,
  boundedText,
  descriptionOfMcp,
  schemaOfMcp,
  titleOfMcp,
} from '../../../../src/legion/mcp/spec.js';

describe("MCP's hints as CAESAR's annotations", () => {
  test('a tool that declares nothing is not read-only, destructive and open-world', () => {
    expect(annotationsOfMcp({})).toEqual({
      readOnly: false,
      destructive: true,
      idempotent: false,
      openWorld: true,
    });
  });

  test.each([
    [
      { readOnlyHint: true },
      { readOnly: true, destructive: false, idempotent: true, openWorld: true },
    ],
    [
      { readOnlyHint: true, destructiveHint: true, openWorldHint: false },
      { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    ],
    [
      { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      { readOnly: false, destructive: false, idempotent: true, openWorld: true },
    ],
  ])('%j -> %j', (hints, expected) => {
    expect(annotationsOfMcp({ annotations: hints })).toEqual(expected);
  });
});

describe('words from the server', () => {
  test('a description is bounded, stripped of controls, and says where it comes from', () => {
    const d = descriptionOfMcp({ name: 'get-sum', description: 'Adds.\u001b[2J' }, 'everything');
    expect(d).toBe('Adds. [2J (MCP tool "get-sum" of the server everything.)');
    const long = descriptionOfMcp({ name: 'x', description: 'y'.repeat(5000) }, 's');
    expect(long.length).toBeLessThanOrEqual(2000);
    expect(descriptionOfMcp({ name: 'x' }, 's')).toBe('(MCP tool "x" of the server s.)');
  });

  test('a title is one bounded line, or the default', () => {
    expect(titleOfMcp({ title: 'Read\nFile' })).toBe('Read File');
    expect(titleOfMcp({ annotations: { title: 'From hints' } })).toBe('From hints');
    expect(titleOfMcp({})).toBeUndefined();
    expect(titleOfMcp({ title: 't'.repeat(300) })?.length).toBe(100);
    expect(boundedText('  a\u0007b  ', 10)).toBe('a b');
  });
});

describe("a server's JSON Schema", () => {
  test("loses draft-07's $schema and its $id, and keeps the rest", () => {
    const r = schemaOfMcp({
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: 'urn:x',
      type: 'object',
      properties: { a: { type: 'number' } },
    });
    expect(r).toEqual({
      ok: true,
      schema: { type: 'object', properties: { a: { type: 'number' } } },
    });
  });

  test('is refused past 64 KiB or 32 levels of nesting', () => {
    const big = { type: 'object', description: 'x'.repeat(70_000) };
    expect(schemaOfMcp(big)).toEqual({
      ok: false,
      reason: 'its schema is larger than 65536 bytes',
    });
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) deep = { type: 'array', items: deep };
    expect(schemaOfMcp(deep)).toEqual({ ok: false, reason: 'its schema nests deeper than 32' });
  });
});
