import { Buffer } from 'node:buffer';
import { describe, expect, test } from 'vitest';
import {
  MAX_CONTENT_CHARS,
  MAX_TOOL_RECORD_BYTES,
  truncationMarker,
} from '../../../../src/brain/conversations/truncate.js';
import type { SessionRef } from '../../../../src/brain/conversations/types.js';
import { openStore, query, tempDir } from './fixtures.js';

const MB = 1024 * 1024;

function withSession(
  run: (store: ReturnType<typeof openStore>, id: SessionRef, file: string) => void,
) {
  using dir = tempDir();
  const file = dir.file('c.db');
  using store = openStore(file);
  run(store, store.createSession('alice'), file);
}

/** The raw stored row, read back on a separate connection. */
function storedRows(file: string) {
  return query<{ content: string; tool: string | null; ok: number }>(
    file,
    'SELECT content, tool, tool IS NULL OR json_valid(tool) AS ok FROM turns ORDER BY seq',
  );
}

describe('content cap', () => {
  test('a 1 MB message is cut to the cap with a marker, and stored as valid text', () => {
    withSession((store, id, file) => {
      const huge = 'ab'.repeat(MB / 2);
      const turn = store.appendUser(id, huge);
      const expected = 'ab'.repeat(MAX_CONTENT_CHARS / 2) + truncationMarker(MB, 'chars');
      expect(turn.content).toBe(expected);
      expect(store.history(id)[0]?.content).toBe(expected);
      expect(storedRows(file)[0]?.content).toBe(expected);
      expect(query(file, 'PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    });
  });

  test.each([
    ['at the cap', MAX_CONTENT_CHARS, false],
    ['one over the cap', MAX_CONTENT_CHARS + 1, true],
  ])('content %s: cut %s', (_case, length, cut) => {
    withSession((store, id) => {
      const content = store.appendAssistant(id, 'x'.repeat(length)).content;
      expect(content.endsWith(truncationMarker(length, 'chars'))).toBe(cut);
      expect(content.startsWith('x'.repeat(MAX_CONTENT_CHARS))).toBe(true);
    });
  });

  test('the cut never splits a surrogate pair', () => {
    withSession((store, id) => {
      const text = 'x'.repeat(MAX_CONTENT_CHARS - 1) + '😀'.repeat(10);
      const content = store.appendUser(id, text).content;
      expect(content).toBe(
        'x'.repeat(MAX_CONTENT_CHARS - 1) + truncationMarker(text.length, 'chars'),
      );
    });
  });

  test('a lone surrogate is stored as U+FFFD, so the text reads back as it was kept', () => {
    withSession((store, id, file) => {
      store.appendUser(id, 'a\uD800b\uDC00c');
      expect(store.history(id)[0]?.content).toBe('a\uFFFDb\uFFFDc');
      expect(storedRows(file)[0]?.content).toBe('a\uFFFDb\uFFFDc');
    });
  });
});

describe('tool record cap', () => {
  test('a 1 MB result becomes a string preview with a marker; the small input survives whole', () => {
    withSession((store, id, file) => {
      const result = {
        items: Array.from({ length: 20_000 }, (_, i) => ({ i, text: 'y'.repeat(40) })),
      };
      const resultBytes = Buffer.byteLength(JSON.stringify(result));
      expect(resultBytes).toBeGreaterThan(MB);
      const turn = store.appendTool(id, {
        name: 'web_search',
        decision_id: 'd-1',
        outcome: 'ok',
        input: { query: 'caesar' },
        result,
      });
      const row = storedRows(file)[0]!;
      expect(row.ok).toBe(1);
      expect(Buffer.byteLength(row.tool!)).toBeLessThanOrEqual(MAX_TOOL_RECORD_BYTES);
      expect(Buffer.byteLength(row.tool!)).toBeGreaterThan(MAX_TOOL_RECORD_BYTES - 1024);
      expect(turn.tool?.input).toEqual({ query: 'caesar' });
      const preview = turn.tool?.result;
      expect(typeof preview).toBe('string');
      expect(preview).toMatch(/^\{"items":\[\{"i":0,"text":"y+"\}/);
      expect(String(preview).endsWith(truncationMarker(resultBytes, 'bytes of JSON'))).toBe(true);
      expect(store.history(id)[0]?.tool).toEqual(turn.tool);
    });
  });

  test('three huge payloads share the room and the record stays under the cap', () => {
    withSession((store, id, file) => {
      const big = (c: string) => ({ text: c.repeat(200_000) });
      const turn = store.appendTool(id, {
        name: 'x',
        decision_id: 'd',
        outcome: 'failed',
        input: big('i'),
        result: big('r'),
        error: big('e'),
      });
      const row = storedRows(file)[0]!;
      expect(row.ok).toBe(1);
      expect(Buffer.byteLength(row.tool!)).toBeLessThanOrEqual(MAX_TOOL_RECORD_BYTES);
      for (const key of ['input', 'result', 'error'] as const) {
        const part = String(turn.tool?.[key]);
        expect(part).toMatch(/… \[truncated, 200011 bytes of JSON total\]$/);
        expect(part.length).toBeGreaterThan(MAX_TOOL_RECORD_BYTES / 4);
      }
    });
  });

  test('JSON full of characters that need escaping still fits the cap', () => {
    withSession((store, id, file) => {
      const nasty = '"\\\n\u0001é😀'.repeat(100_000);
      store.appendTool(id, { name: 'x', decision_id: 'd', outcome: 'ok', result: [nasty] });
      const row = storedRows(file)[0]!;
      expect(row.ok).toBe(1);
      expect(Buffer.byteLength(row.tool!)).toBeLessThanOrEqual(MAX_TOOL_RECORD_BYTES);
      expect(String(store.history(id)[0]?.tool?.result)).toMatch(/bytes of JSON total\]$/);
    });
  });

  test('a record under the cap is stored as given', () => {
    withSession((store, id) => {
      const record = {
        name: 'calculator',
        decision_id: 'd-9',
        outcome: 'ok',
        input: { expression: '1/3', nested: [1, [2, [3]]] },
        result: { value: 0.3333333333333333, text: 'é😀' },
      };
      expect(store.appendTool(id, record).tool).toEqual(record);
    });
  });

  test.each([
    ['a bigint', { n: 10n }, { n: '10' }],
    ['an Error', new TypeError('bad'), { name: 'TypeError', message: 'bad' }],
    ['a function member', { f: () => 1, k: 1 }, { k: 1 }],
    ['a lone surrogate', { s: '\uD800' }, { s: '\uD800' }],
  ])('a result holding %s is stored as plain JSON', (_case, result, stored) => {
    withSession((store, id, file) => {
      const turn = store.appendTool(id, { name: 'x', decision_id: 'd', outcome: 'ok', result });
      expect(turn.tool?.result).toEqual(stored);
      expect(storedRows(file)[0]?.ok).toBe(1);
    });
  });

  test('a cyclic result is stored as a marker instead of failing the append', () => {
    withSession((store, id) => {
      const cyclic: Record<string, unknown> = { a: 1 };
      cyclic.self = cyclic;
      const turn = store.appendTool(id, {
        name: 'x',
        decision_id: 'd',
        outcome: 'ok',
        result: cyclic,
      });
      expect(String(turn.tool?.result)).toMatch(/^\[not serialisable: /);
    });
  });

  test('overlong labels are cut and undefined payloads are left out', () => {
    withSession((store, id) => {
      const turn = store.appendTool(id, {
        name: 'n'.repeat(1000),
        decision_id: 'd'.repeat(1000),
        outcome: 'ok',
        input: undefined,
      });
      expect(turn.tool?.name).toBe('n'.repeat(256) + '…');
      expect(turn.tool?.decision_id).toHaveLength(257);
      expect(turn.tool).not.toHaveProperty('input');
    });
  });
});
