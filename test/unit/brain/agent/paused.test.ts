import { describe, expect, test } from 'vitest';
import { PausedTurns } from '../../../../src/brain/agent/paused.js';
import { newTurnBudget } from '../../../../src/brain/agent/turn-calls.js';

/** A turn of `actor` whose round waits for `ids` (confirmation id -> the model's call id). */
function turn(ids: Record<string, string>, expiresAt = Number.MAX_SAFE_INTEGER, actor = 'tablet') {
  return {
    session: { actor, id: 's-1' },
    caller: { actor, sessionId: 's-1' },
    iteration: 2,
    waiting: new Map(Object.entries(ids)),
    budget: newTurnBudget(),
    expiresAt,
  };
}

describe('PausedTurns.drop', () => {
  test('drops the whole turn: the decided call, and every other call of the turn still waiting', () => {
    const paused = new PausedTurns();
    paused.add(turn({ 'c-1': 'call_a', 'c-2': 'call_b', 'c-3': 'call_c' }));
    const dropped = paused.drop('c-2');
    expect(dropped?.callId).toBe('call_b');
    expect(dropped?.others).toEqual([
      { confirmationId: 'c-1', callId: 'call_a' },
      { confirmationId: 'c-3', callId: 'call_c' },
    ]);
    expect(dropped?.turn.caller.actor).toBe('tablet');
    expect(paused.has('c-1')).toBe(false);
    // nothing of the turn is left to go on from: no other decision resumes it
    expect(paused.size).toBe(0);
    expect(paused.take('c-1')).toBeUndefined();
    expect(paused.take('c-3')).toBeUndefined();
  });

  test('another turn paused at the same time is left as it was', () => {
    const paused = new PausedTurns();
    paused.add(turn({ 'c-1': 'call_a', 'c-2': 'call_b' }));
    paused.add(turn({ 'k-1': 'call_k' }, Number.MAX_SAFE_INTEGER, 'kiosk'));
    expect(paused.drop('c-1')?.others).toEqual([{ confirmationId: 'c-2', callId: 'call_b' }]);
    expect(paused.size).toBe(1);
    expect(paused.take('k-1')?.callId).toBe('call_k');
  });

  test('a confirmation decided before is not among the others', () => {
    const paused = new PausedTurns();
    paused.add(turn({ 'c-1': 'call_a', 'c-2': 'call_b' }));
    expect(paused.take('c-1')?.callId).toBe('call_a');
    expect(paused.drop('c-2')).toMatchObject({ callId: 'call_b', others: [] });
  });

  test('undefined for a confirmation no paused turn holds: unknown, or its turn expired', () => {
    let now = 1000;
    const paused = new PausedTurns(() => now);
    paused.add(turn({ 'c-1': 'call_a' }, 2000));
    expect(paused.has('c-1')).toBe(true);
    expect(paused.has('nope')).toBe(false);
    expect(paused.drop('nope')).toBeUndefined();
    now = 2000;
    expect(paused.drop('c-1')).toBeUndefined();
    expect(paused.size).toBe(0);
  });
});
