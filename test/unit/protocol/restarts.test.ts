import { describe, expect, test } from 'vitest';
import { encodeWorkerRestarts, parseWorkerRestarts } from '../../../src/protocol/index.js';

// Issue 28: the `caesar.restarts` metadata value, as a worker writes it and a reader reads it.

describe('caesar.restarts', () => {
  test('is compact JSON in a fixed key order, and reads back as written', () => {
    const text = encodeWorkerRestarts({
      last_at: '2026-12-04T10:00:00.000Z',
      count: 2,
      last_reason: 'memory',
    });
    expect(text).toBe('{"count":2,"last_reason":"memory","last_at":"2026-12-04T10:00:00.000Z"}');
    expect(parseWorkerRestarts(text)).toEqual({ ok: true, value: JSON.parse(text) });
  });

  test('a value with a prototype key is refused by the JSON ladder, never read', () => {
    const text =
      '{"count":2,"last_reason":"memory","last_at":"2026-12-04T10:00:00.000Z","__proto__":{"count":9}}';
    expect(parseWorkerRestarts(text)).toEqual({
      ok: false,
      problem: expect.stringMatching(/^JSON with a `__proto__` key at __proto__/) as unknown,
    });
    expect(parseWorkerRestarts('{')).toEqual({ ok: false, problem: 'not JSON' });
  });

  test('a worker never writes a value a reader would refuse', () => {
    expect(() =>
      encodeWorkerRestarts({ count: 0, last_reason: 'memory', last_at: '2026-12-04T10:00:00Z' }),
    ).toThrow();
  });
});
