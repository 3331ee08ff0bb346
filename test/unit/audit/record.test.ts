import { describe, expect, test } from 'vitest';
import { recordFromRaw, type RawRow } from '../../../src/audit/record.js';

// Issue 30: a row's payload is read with the one JSON ladder. The log writes rows from
// bounded values; a row that holds anything else was tampered with, and reads as unparseable.

const row = (payload: string): RawRow => [
  7,
  '2026-12-05T10:00:00.000Z',
  'tool.called',
  'd-1',
  null,
  'calculator',
  'alice',
  'allowed',
  payload,
  '0'.repeat(64),
  '1'.repeat(64),
  'alice',
];

describe('recordFromRaw: the payload', () => {
  test('a row the log wrote reads back parsed, wrapped values and all', () => {
    const input = JSON.parse(`${'['.repeat(63)}1${']'.repeat(63)}`) as unknown;
    const payload = { input, decision: { rule: 'r1' } };
    expect(recordFromRaw(row(JSON.stringify(payload))).payload).toEqual(payload);
  });

  test.each([
    ['not JSON', '{"input":'],
    ['a `__proto__` key', '{"input":{"__proto__":{"isAdmin":true}}}'],
    ['nesting no row the log writes holds', `{"a":${'['.repeat(200)}${']'.repeat(200)}}`],
  ])('%s reads as unparseable, with the head of the text', (_what, text) => {
    expect(recordFromRaw(row(text)).payload).toEqual({ _unparseable: text.slice(0, 256) });
  });
});
