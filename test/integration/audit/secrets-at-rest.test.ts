import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { openAuditLog } from '../../../src/audit/index.js';
import { openConversationStore } from '../../../src/brain/conversations/index.js';
import { PLAIN_LINES, SECRET_LINES } from '../../fixtures/secrets-corpus.js';
import { tempDir } from '../../helpers/audit-fixtures.js';

/**
 * The secrets corpus, end to end: every line goes into a real audit log file and a real
 * conversations file the way the brain writes them, and the files' bytes (database, WAL,
 * anything beside them) are searched afterwards. A secret must appear nowhere; the words
 * around it and every plain line must be there.
 */

/** All bytes of every file in `dir`, as latin1 so any byte sequence survives. */
function bytesOf(dir: string): string {
  return readdirSync(dir)
    .map((name) => readFileSync(join(dir, name)).toString('latin1'))
    .join('\n');
}

const latin1 = (s: string) => Buffer.from(s, 'utf8').toString('latin1');

function expectStored(bytes: string): void {
  for (const line of SECRET_LINES) {
    for (const secret of line.secrets) {
      expect(bytes.includes(latin1(secret)), `${line.name}: ${secret} stored`).toBe(false);
    }
    for (const word of line.kept) {
      expect(bytes.includes(latin1(word)), `${line.name}: "${word}" lost`).toBe(true);
    }
  }
  for (const line of PLAIN_LINES) {
    expect(bytes.includes(latin1(line)), `plain line "${line}" lost`).toBe(true);
  }
}

describe('secrets corpus at rest', () => {
  test('the audit log file holds no secret of the corpus, and every plain line', async () => {
    using dir = tempDir();
    const log = openAuditLog({ path: dir.file('audit.db'), retention: { days: 0, intervalMs: 0 } });
    try {
      for (const text of [...SECRET_LINES.map((l) => l.text), ...PLAIN_LINES]) {
        await log.append({
          type: 'chat.completed',
          actor: 'token:test',
          sessionId: 's-1',
          payload: {
            message: text,
            reply: text,
            iterations: 1,
            capped: false,
            planner: 'llm',
            tool_calls: [],
            duration_ms: 1,
          },
        });
      }
      expectStored(bytesOf(dir.path));
    } finally {
      await log.close();
    }
    expectStored(bytesOf(dir.path));
  });

  test('the conversations file holds no secret of the corpus, in any turn kind', () => {
    using dir = tempDir();
    const store = openConversationStore({ file: dir.file('conversations.db'), historyLimit: 1000 });
    try {
      const id = store.createSession('alice');
      for (const [i, text] of [...SECRET_LINES.map((l) => l.text), ...PLAIN_LINES].entries()) {
        store.appendUser(id, text);
        store.appendAssistant(id, text);
        store.appendTool(id, {
          name: 'web_search',
          decision_id: `d-${i}`,
          outcome: 'ok',
          content: text,
          input: { query: text, nested: [{ note: text }] },
          result: { snippet: text },
          error: { message: text },
        });
      }
      const turns = store.history(id);
      expect(turns).toHaveLength(3 * (SECRET_LINES.length + PLAIN_LINES.length));
      expectStored(bytesOf(dir.path));
    } finally {
      store.close();
    }
    expectStored(bytesOf(dir.path));
  });

  test('a value under a secret-looking key in a tool record is not stored', () => {
    using dir = tempDir();
    const store = openConversationStore({ file: dir.file('conversations.db'), historyLimit: 10 });
    try {
      const id = store.createSession('alice');
      const turn = store.appendTool(id, {
        name: 'call_service',
        decision_id: 'd-1',
        outcome: 'ok',
        input: { domain: 'lock', headers: { Authorization: 'opaque-value-1', api_key: 42 } },
        result: { rows: [{ client_secret: 'opaque-value-2' }] },
      });
      expect(turn.tool?.input).toEqual({
        domain: 'lock',
        headers: { Authorization: '[redacted]', api_key: '[redacted]' },
      });
    } finally {
      store.close();
    }
    expect(bytesOf(dir.path)).not.toContain('opaque-value');
  });
});
