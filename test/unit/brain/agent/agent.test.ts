import { describe, expect, test } from 'vitest';
import { Agent } from '../../../../src/brain/agent/index.js';
import type { CallGate, ToolTurnRecord } from '../../../../src/brain/agent/ports.js';
import type { ToolCallReport } from '../../../../src/brain/api/index.js';
import type { AuditSink } from '../../../../src/brain/gateway/index.js';
import { loadIntents } from '../../../../src/brain/intents/index.js';
import { SHIPPED_INTENTS_FILE } from '../../../../src/config/shipped.js';
import { ScriptedPlanner } from '../../../helpers/scripted-planner.js';
import { openStore, tempDir } from '../conversations/fixtures.js';

// Issue 30: one helper turns a call's report into its conversation record (appendCallRecord);
// on every path a denied call's record keeps the policy's reason, so the model reads why.

const REASON = 'calculator is denied for ops by rule no-maths (policy.yaml:4:5)';

/** The gateway's answer to every call here: the policy's denial, with its reason. */
class DenyingGate implements CallGate {
  readonly calls: string[] = [];
  invoke(tool: string, input: unknown): Promise<ToolCallReport> {
    this.calls.push(tool);
    return Promise.resolve({
      tool,
      input,
      outcome: 'denied',
      reason: REASON,
      rule: 'no-maths',
      decision_id: `d-${this.calls.length}`,
      duration_ms: 0.5,
    });
  }
  rejectStopped(): Promise<undefined> {
    return Promise.resolve(undefined);
  }
}

const audit: AuditSink = { append: () => Promise.resolve({ seq: 1 } as never) };

const CALCULATOR = { name: 'calculator', description: 'arithmetic', inputSchema: {} };

async function denied(mode: 'intent' | 'react' | 'plan_first'): Promise<ToolTurnRecord[]> {
  using dir = tempDir();
  const conversations = openStore(dir.file('conversations.db'));
  try {
    const gate = new DenyingGate();
    const planner = new ScriptedPlanner([
      {
        type: 'tool_calls',
        text: '',
        calls: [{ id: 'c1', tool: 'calculator', input: { expression: '1+1' } }],
      },
      { type: 'reply', text: 'I may not.' },
    ]);
    const agent = new Agent({
      gate,
      intents: await loadIntents(SHIPPED_INTENTS_FILE),
      conversations,
      audit,
      ...(mode === 'intent' ? {} : { planner, mode, preferLocal: false }),
      plannerTools: () => [CALCULATOR],
      timeZone: 'UTC',
    });
    const r = await agent.chat({ message: 'what is 1 + 1' }, { actor: 'ops' });
    expect(gate.calls).toEqual(['calculator']);
    expect(r.tool_calls[0]).toMatchObject({ outcome: 'denied', reason: REASON });
    return conversations
      .history({ actor: 'ops', id: r.session_id })
      .flatMap((t) => (t.tool === undefined ? [] : [t.tool]));
  } finally {
    conversations.close();
  }
}

describe("a denied call's conversation record carries the denial's reason", () => {
  test.each(['intent', 'react', 'plan_first'] as const)('%s', async (mode) => {
    const records = await denied(mode);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      name: 'calculator',
      outcome: 'denied',
      error: { code: 'denied', message: REASON },
      ...(mode === 'intent' ? {} : { call_id: 'c1' }),
    });
  });
});
