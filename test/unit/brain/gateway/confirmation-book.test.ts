import { expect, test } from 'vitest';
import { ConfirmationBook, type PendingCall } from '../../../../src/brain/gateway/confirmations.js';
import type { PolicyDecision } from '../../../../src/policy/index.js';
import { API_ORIGIN } from '../../../../src/brain/gateway/provenance.js';

const decision = {
  allowed: false,
  outcome: 'confirm',
  reason: 'needs a human',
  rule: { id: 'calc-confirm', file: 'policy.yaml', line: 3, column: 5, list: null, index: null },
  decision_id: 'd',
  policy_sha256: 'abc',
  obligations: [],
} as unknown as PolicyDecision;

const call = (tool: string) => ({
  tool,
  input: {},
  decisionId: `d-${tool}`,
  decision,
  summary: `${tool} with {}`,
  caller: { actor: 'operator' },
  origin: API_ORIGIN,
});

test('list shows the calls still waiting, oldest first, without the taken or expired ones', () => {
  let now = 1_000;
  const voided: Array<[string, string]> = [];
  const book = new ConfirmationBook({
    ttlMs: 100,
    now: () => now,
    onVoid: (c: PendingCall, reason) => voided.push([c.tool, reason]),
  });
  try {
    const a = book.add(call('a'));
    now = 1_050;
    const b = book.add(call('b'));
    const c = book.add(call('c'));
    expect(book.list().map((p) => p.tool)).toEqual(['a', 'b', 'c']);
    book.take(b.id);
    now = 1_120; // a expired; c has 30 ms left
    expect(book.list().map((p) => p.id)).toEqual([c.id]);
    expect(voided).toEqual([['a', 'expired']]);
    expect(a.id).not.toBe(c.id);
  } finally {
    book.close();
  }
});
