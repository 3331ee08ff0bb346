import { describe, expect, test } from 'vitest';
import {
  newTurnBudget,
  planRound,
  readItemsOf,
  recordOf,
} from '../../../../src/brain/agent/turn-calls.js';
import type { ConversationTurn, PlannedCall } from '../../../../src/brain/agent/ports.js';

const offered = new Set(['web_search', 'call_service']);
const known = { has: (n: string) => offered.has(n) || n === 'calendar_read' };
const caps = { perRound: 8, perTurn: 24 };
const calls = (n: number, tool = 'web_search'): PlannedCall[] =>
  Array.from({ length: n }, (_, i) => ({ id: `c${i}`, tool, input: { query: `q${i}` } }));

describe('planRound', () => {
  test('300 calls in one round: 8 run, 8 more are told why, the rest are dropped and counted', () => {
    const budget = newTurnBudget();
    const plan = planRound(calls(300), known, offered, budget, caps);
    expect(plan.run).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(plan.refused.size).toBe(8);
    expect(plan.dropped).toBe(284);
    expect(plan.refused.get(8)?.error).toMatchObject({ code: 'too_many_calls' });
    expect(plan.refused.get(8)?.reason).toMatch(/at most 8 calls run per round .*284 more call/);
    expect(plan.audit).toEqual({ refused: { over_round_cap: 8 }, dropped: 284, invented: [] });
    expect(budget.calls).toBe(8);
  });

  test('the turn cap holds across rounds', () => {
    const budget = newTurnBudget();
    for (let round = 0; round < 3; round++) planRound(calls(8), known, offered, budget, caps);
    const fourth = planRound(calls(2), known, offered, budget, caps);
    expect(fourth.run).toEqual([]);
    expect(fourth.refused.get(0)?.reason).toMatch(
      /at most 24 calls run per turn \(llm\.max_calls_per_turn\)/,
    );
    expect(fourth.audit.refused).toEqual({ over_turn_cap: 2 });
  });

  test('an invented name is refused, listed clamped and escaped; a known tool not offered goes on to the policy', () => {
    const long = `x${'y'.repeat(100)}`;
    const plan = planRound(
      [
        { id: 'a', tool: 'shell\u001b]0;t\u0007', input: {} },
        { id: 'b', tool: long, input: {} },
        { id: 'c', tool: 'calendar_read', input: {} },
      ],
      known,
      offered,
      newTurnBudget(),
      caps,
    );
    expect(plan.run).toEqual([2]);
    expect(plan.audit.invented).toEqual(['shell\\u001b]0;t\\u0007', `x${'y'.repeat(63)}…`]);
    const refused = plan.refused.get(0)!;
    expect(refused.error?.code).toBe('unknown_tool');
    expect(refused.tool).toBe('shell\\u001b]0;t\\u0007');
    expect(refused.reason).toContain('the tools you may call are: web_search, call_service');
  });

  test('3,000 invented names: at most 16 are looked at and 16 listed', () => {
    const many = Array.from({ length: 3000 }, (_, i) => ({
      id: `i${i}`,
      tool: `made_up_${i}`,
      input: {},
    }));
    const plan = planRound(many, known, offered, newTurnBudget(), caps);
    expect(plan.refused.size).toBe(16);
    expect(plan.dropped).toBe(2984);
    expect(plan.audit.invented).toHaveLength(16);
  });
});

describe('records and what was read', () => {
  test('a record keeps its label; a record stored before labels gets its tool spec’s, or the most cautious', () => {
    const report = {
      tool: 'web_search',
      input: { query: 'x' },
      outcome: 'ok' as const,
      result: { results: [{ url: 'https://e.example/a', snippet: 'hello' }] },
      label: { trust: 'untrusted' as const, private: false, sources: ['https://e.example/a'] },
      decision_id: 'd1',
      duration_ms: 1,
    };
    const record = recordOf(report, 'call-1');
    expect(record).toMatchObject({ name: 'web_search', call_id: 'call-1', label: report.label });
    const history: ConversationTurn[] = [
      { role: 'user', content: 'search x' },
      { role: 'tool', content: 'web_search: ok', tool: record },
      {
        role: 'tool',
        content: 'old: ok',
        tool: { name: 'old_tool', decision_id: 'd0', outcome: 'ok', result: 'r' },
      },
    ];
    const read = readItemsOf(history, () => null);
    expect(read.map((r) => [r.tool, r.label.trust, r.label.private])).toEqual([
      ['web_search', 'untrusted', false],
      ['old_tool', 'untrusted', true],
    ]);
    expect(read[0]!.texts()).toContain('hello');
  });
});
