import { describe, expect, test } from 'vitest';
import type { ConversationTurn } from '../../../../src/brain/agent/ports.js';
import {
  DEFAULT_SYSTEM_PROMPT,
  PLAN_FIRST_PLAN_RULES,
  PLAN_FIRST_REPLY_RULES,
} from '../../../../src/brain/llm/prompt.js';
import { LlmPlanner } from '../../../../src/brain/llm/planner.js';
import { ProviderChain } from '../../../../src/brain/llm/chain.js';
import type { LlmProvider, LlmRequest, LlmResponse } from '../../../../src/brain/llm/types.js';

/** A chain over one provider that answers `response` and keeps the request. */
function plannerAnswering(response: Partial<LlmResponse>, systemPrompt?: string) {
  const seen: LlmRequest[] = [];
  const provider: LlmProvider = {
    name: 'p',
    model: 'm',
    complete: (req) => {
      seen.push(req);
      for (const d of (response.text ?? '').match(/.{1,3}/g) ?? []) req.onText?.(d);
      return Promise.resolve({
        provider: 'p',
        model: 'm',
        text: '',
        calls: [],
        usage: { inputTokens: 1, outputTokens: 1 },
        stopReason: 'stop',
        ...response,
      });
    },
  };
  const planner = new LlmPlanner({
    chain: new ProviderChain({ providers: [provider] }),
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
  });
  return { planner, seen };
}

const ask = (history: ConversationTurn[], onText?: (d: string) => void) => ({
  history,
  tools: [{ name: 'calculator', description: 'CARD', inputSchema: { type: 'object' } }],
  iteration: 1,
  signal: new AbortController().signal,
  ...(onText ? { onText } : {}),
});

describe('LlmPlanner', () => {
  test('sends the built-in prompt, the transcript and the tools with their cards', async () => {
    const { planner, seen } = plannerAnswering({ text: 'hi' });
    await planner.plan(ask([{ role: 'user', content: 'hello' }]));
    expect(seen[0]).toMatchObject({
      system: DEFAULT_SYSTEM_PROMPT,
      messages: [{ role: 'user', text: 'hello' }],
      tools: [{ name: 'calculator', description: 'CARD', inputSchema: { type: 'object' } }],
    });
    expect(seen[0]!.onText).toBeUndefined();
  });

  test('a configured prompt replaces the built-in one', async () => {
    const { planner, seen } = plannerAnswering({ text: 'hi' }, 'Be brief.');
    await planner.plan(ask([{ role: 'user', content: 'hello' }]));
    expect(seen[0]!.system).toBe('Be brief.');
  });

  test('call ids already in the conversation, or repeated in one answer, are replaced', async () => {
    const { planner } = plannerAnswering({
      calls: [
        { id: 'call_0', name: 'a', arguments: '{}' },
        { id: 'call_1', name: 'b', arguments: '{}' },
        { id: 'call_1', name: 'c', arguments: '{}' },
      ],
    });
    const history: ConversationTurn[] = [
      { role: 'user', content: 'q' },
      {
        role: 'tool',
        content: '',
        tool: { name: 'a', decision_id: 'd', call_id: 'call_0', outcome: 'ok' },
      },
      { role: 'user', content: 'again' },
    ];
    const step = await planner.plan(ask(history));
    if (step.type !== 'tool_calls') throw new Error('expected calls');
    const ids = step.calls.map((c) => c.id);
    expect(ids[0]).not.toBe('call_0');
    expect(ids[1]).toBe('call_1');
    expect(new Set(ids).size).toBe(3);
  });

  test('an answer cut at max_tokens says so, in the reply and in the stream', async () => {
    const { planner } = plannerAnswering({ text: 'The long answer', stopReason: 'length' });
    let streamed = '';
    const step = await planner.plan(
      ask([{ role: 'user', content: 'q' }], (d) => void (streamed += d)),
    );
    expect(step).toMatchObject({
      type: 'reply',
      text: 'The long answer\n\n[The answer was cut: the model reached llm.max_tokens.]',
    });
    expect(streamed).toBe(step.text);
  });

  test('an empty answer is said plainly', async () => {
    const { planner } = plannerAnswering({ text: '' });
    const step = await planner.plan(ask([{ role: 'user', content: 'q' }]));
    expect(step).toMatchObject({ type: 'reply', text: 'The model returned an empty answer.' });
  });

  describe('plan_first rounds (ADR 0069)', () => {
    const history: ConversationTurn[] = [
      { role: 'user', content: 'search pasta' },
      {
        role: 'tool',
        content: '',
        tool: {
          name: 'calculator',
          decision_id: 'd1',
          call_id: 'c1',
          outcome: 'ok',
          input: { expression: '1+1' },
          result: { value: 2 },
        },
      },
    ];

    test('the plan round adds the plan rules, with the placeholder form, to the prompt', async () => {
      const { planner, seen } = plannerAnswering({ text: 'hi' });
      await planner.plan({ ...ask([{ role: 'user', content: 'hello' }]), stage: 'plan' });
      expect(seen[0]!.system).toBe(`${DEFAULT_SYSTEM_PROMPT}\n\n${PLAN_FIRST_PLAN_RULES}`);
      expect(PLAN_FIRST_PLAN_RULES).toContain('{"$from": 1, "path": "/matches/0/entity_id"}');
      expect(seen[0]!.tools).toHaveLength(1);
    });

    test("the rules follow an operator's own prompt too", async () => {
      const { planner, seen } = plannerAnswering({ text: 'hi' }, 'Be brief.');
      await planner.plan({ ...ask([{ role: 'user', content: 'hello' }]), stage: 'plan' });
      expect(seen[0]!.system).toBe(`Be brief.\n\n${PLAN_FIRST_PLAN_RULES}`);
    });

    test('the reply round offers no tools and carries the results as text, not tool blocks', async () => {
      const { planner, seen } = plannerAnswering({ text: 'It is 2.' });
      await planner.plan({ ...ask(history), tools: [], stage: 'reply' });
      expect(seen[0]!.system).toBe(`${DEFAULT_SYSTEM_PROMPT}\n\n${PLAN_FIRST_REPLY_RULES}`);
      expect(seen[0]!.tools).toEqual([]);
      expect(seen[0]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(JSON.stringify(seen[0]!.messages)).toContain('\\"value\\":2');
    });

    test('a react round keeps the prompt as it is, and tool blocks when tools are offered', async () => {
      const { planner, seen } = plannerAnswering({ text: 'It is 2.' });
      await planner.plan(ask(history));
      expect(seen[0]!.system).toBe(DEFAULT_SYSTEM_PROMPT);
      expect(seen[0]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    });
  });
});
