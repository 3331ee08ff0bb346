import { describe, expect, test } from 'vitest';
import {
  bodyOf,
  failure,
  reply,
  startFakeAnthropic,
  startFakeOpenAi,
} from '../../../helpers/fake-llm.js';
import { ANTHROPIC_KEY, endpoint, llmConfig, plannerFor, request, tool, user } from './setup.js';

describe('Ollama and failover between providers', () => {
  test.each([false, true])(
    'Ollama at its bare base URL, keyless (streamed: %s)',
    async (streamed) => {
      await using ollama = await startFakeOpenAi();
      ollama.script(reply('hi from llama', { usage: { input: 30, output: 4 } }));
      const { planner } = plannerFor(
        llmConfig([endpoint('ollama', `${ollama.url}/`, { model: 'llama3.1:8b' })]),
      );

      const step = await planner.plan(
        request([user('hi')], streamed ? { onText: () => undefined } : {}),
      );

      expect(step).toMatchObject({ type: 'reply', text: 'hi from llama' });
      expect(step.round).toMatchObject({
        provider: 'ollama',
        model: 'llama3.1:8b',
        inputTokens: 30,
        outputTokens: 4,
      });
      expect(ollama.requests[0]!.url).toBe('/v1/chat/completions');
      expect(bodyOf(ollama, 0)).toMatchObject({ model: 'llama3.1:8b', max_tokens: 256 });
    },
  );

  test('a Retry-After past 30 s is not waited for: the fallback answers at once', async () => {
    await using anthropic = await startFakeAnthropic({ key: ANTHROPIC_KEY });
    await using ollama = await startFakeOpenAi();
    anthropic.script(failure(429, { headers: { 'retry-after': '120' } }));
    ollama.script(reply('local'));
    const { planner, seen } = plannerFor(
      llmConfig([
        endpoint('anthropic', anthropic.url, { apiKey: ANTHROPIC_KEY, model: 'claude-test' }),
        endpoint('ollama', ollama.url, { model: 'llama3.1' }),
      ]),
    );

    const step = await planner.plan(request([user('hi')]));

    expect(step).toMatchObject({ type: 'reply', text: 'local' });
    expect(seen.waits).toEqual([]);
    expect(step.round!.attempts[0]!.message).toContain('429 rate limited (retry after 120 s)');
  });

  test("a failover mid-conversation sends the other provider's call ids in a form it takes", async () => {
    await using anthropic = await startFakeAnthropic({ key: ANTHROPIC_KEY });
    await using openai = await startFakeOpenAi();
    anthropic.script(failure(529), failure(529), failure(529));
    openai.script(reply('answered by the fallback'));
    const longId = 'fc_0f0e50a1476a6c35006912c58dc9f8819192c25864eb16f07f';
    const history = [
      user('look it up'),
      tool({ name: 'web_search', call_id: 'toolu_01A09q90qw90lq917835lq9', input: { query: 'a' } }),
      tool({ name: 'web_search', call_id: longId, input: { query: 'b' }, outcome: 'failed' }),
    ];
    const { planner } = plannerFor(
      llmConfig([
        endpoint('anthropic', anthropic.url, { apiKey: ANTHROPIC_KEY, model: 'claude-test' }),
        endpoint('openai', `${openai.url}/v1`, { model: 'local-model' }),
      ]),
    );

    const step = await planner.plan(request(history));

    expect(step).toMatchObject({ type: 'reply', text: 'answered by the fallback' });
    // Anthropic was sent the same conversation, valid in its own format (the fake checks it)
    expect(anthropic.bodies).toHaveLength(3);
    const messages = bodyOf(openai, 0).messages as {
      role: string;
      tool_calls?: { id: string }[];
      tool_call_id?: string;
    }[];
    const ids = messages[2]!.tool_calls!.map((c) => c.id);
    expect(ids[0]).toBe('toolu_01A09q90qw90lq917835lq9');
    expect(ids[1]).toMatch(/^call_[0-9a-f]{32}$/);
    expect(messages.slice(3).map((m) => m.tool_call_id)).toEqual(ids);
  });
});
