import { describe, expect, test } from 'vitest';
import { parseChildMessage } from '../../../src/cli/stack/messages.js';
import { readyLine } from '../../../src/cli/stack/ready-line.js';

// Issue 29, point 8: the ready line did not say which model would answer.

const FACTS = {
  apiUrl: 'http://127.0.0.1:8420',
  natsUrls: ['nats://127.0.0.1:4222'],
  tools: ['calculator', 'web_search'],
  tokensFile: '/srv/var/tokens.json',
};

describe("caesar up's ready line", () => {
  test('names the provider and model the brain asks', () => {
    const brain = { llm: { model: 'model: ollama llama3.1:8b', checks: [] } };
    expect(readyLine({ ...FACTS, brain })).toBe(
      'ready: CAESAR is up at http://127.0.0.1:8420 (NATS nats://127.0.0.1:4222) with 2 tool(s): ' +
        'calculator, web_search; model: ollama llama3.1:8b. Dashboard: open http://127.0.0.1:8420/ ' +
        'and paste the token from /srv/var/tokens.json. Try: caesar chat "what is 17 * 23". ' +
        'Ctrl-C stops everything.',
    );
  });

  test('says so when no model is configured', () => {
    const brain = { llm: { model: 'no model: local rules only', checks: [] } };
    expect(readyLine({ ...FACTS, brain })).toContain(
      'calculator, web_search; no model: local rules only. Dashboard:',
    );
  });

  test("a brain_ready's llm part is bounded, and may be absent (an older brain)", () => {
    const base = {
      type: 'brain_ready',
      url: 'http://127.0.0.1:8420',
      nats_url: 'nats://127.0.0.1:4222',
      tokens_file: '/t',
      created_tokens_file: false,
      audit_db: '/a',
      policy_file: '/p',
    };
    expect(parseChildMessage(base)).toMatchObject({ ok: true });
    const llm = { model: 'model: openai gpt-4o-mini', checks: ['llm openai x: ok'] };
    expect(parseChildMessage({ ...base, llm })).toMatchObject({ ok: true });
    const checks = Array.from({ length: 9 }, () => 'llm openai x: ok');
    expect(parseChildMessage({ ...base, llm: { model: 'm', checks } })).toMatchObject({
      ok: false,
    });
    expect(readyLine({ ...FACTS, brain: {} })).toContain('calculator, web_search. Dashboard:');
  });
});
