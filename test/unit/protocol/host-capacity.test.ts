import { describe, expect, test } from 'vitest';
import { encodeHostCapacity, parseHostCapacity } from '../../../src/protocol/index.js';

// Issue 31: the `caesar.capacity` metadata value, as a worker writes it and the brain reads it.

describe('caesar.capacity', () => {
  test('is compact JSON in a fixed key order, and reads back as written', () => {
    const text = encodeHostCapacity({
      gpus: [{ count: 2, kind: 'cuda' }],
      memory_gb: 31.2,
      vcpus: 8,
    });
    expect(text).toBe('{"vcpus":8,"memory_gb":31.2,"gpus":[{"kind":"cuda","count":2}]}');
    expect(parseHostCapacity(text)).toEqual({ ok: true, value: JSON.parse(text) });
  });

  test.each([
    ['not JSON', '{', 'not JSON'],
    ['too long', `{"vcpus":1,"memory_gb":1,"gpus":[],"x":"${'a'.repeat(1100)}"}`, 'longer than'],
    ['a field out of bounds', '{"vcpus":0,"memory_gb":1,"gpus":[]}', 'vcpus'],
    ['an unknown field', '{"vcpus":1,"memory_gb":1,"gpus":[],"tpus":4}', 'tpus'],
  ])('a value that is %s is refused with why, never read', (_what, text, why) => {
    const read = parseHostCapacity(text);
    expect(read.ok).toBe(false);
    expect(read.ok ? '' : read.problem).toContain(why);
  });
});
