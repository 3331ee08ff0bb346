import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { loadHome, shippedPolicyWithGrants } from '../../helpers/injection-fixtures.js';
import { startInjectionStack, type InjectionStack } from '../../helpers/injection-stack.js';
import type { ScriptCall } from '../../helpers/stand-in-model.js';

/**
 * A model's appetite, bounded, through the live brain (`caesar up` with a loopback SearXNG):
 * one answer with 300 web_search calls sends at most 8 requests to the search backend per
 * planning round (`llm.max_calls_per_round`) and 24 per turn (`llm.max_calls_per_turn`); one
 * answer with 3,000 invented tool names leaves `/metrics` as long as it was, puts no
 * invented name in an audit row's `tool` column, and the round's `llm.called` row lists a
 * bounded number of them, clamped and escaped, as every place that prints them does.
 */

let stack: InjectionStack;

beforeAll(async () => {
  stack = await startInjectionStack({
    home: loadHome(),
    plants: [],
    policy: shippedPolicyWithGrants(),
    obey: false,
    // 16 answered calls a round: with the default window (40 messages) the user's message
    // leaves the model's context in the third round, and the model is sent no conversation
    // at all; a wider window keeps the turn going to its cap
    env: { CAESAR_BRAIN__HISTORY_LIMIT: '200' },
  });
}, 180_000);

afterAll(async () => {
  await stack?.[Symbol.asyncDispose]();
});

const SHIPPED = new Set([
  'calculator',
  'calendar_read',
  'home_assistant.call_service',
  'home_assistant.entities',
  'web_search',
]);
/**
 * The lines of `/metrics` a model's tool names could add to: all but the Node.js process's
 * own series (prom-client's default collectors: handles by type, GC kinds, memory), whose
 * label sets come and go with the runtime, not with anything a model says.
 */
function metricLines(text: string): string[] {
  return text.split('\n').filter((l) => !/^(# (HELP|TYPE) )?caesar_(process|nodejs)_/.test(l));
}

/** A terminal would act on these: they must never be printed raw. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('calls per round and per turn', () => {
  test('300 web_search calls in each answer reach the backend 8 per round, 24 per turn', async () => {
    const rounds = [0, 1, 2, 3, 4].map((k) =>
      Array.from({ length: 300 }, (_, i): ScriptCall => ({
        tool: 'web_search',
        input: { query: `fan-out ${k}-${i}` },
      })),
    );
    stack.model.learn('search everything', { rounds });
    const from = stack.searx.requests.length;
    const seen: number[] = [];
    stack.model.onRequest = () => seen.push(stack.searx.requests.length - from);
    try {
      const r = await stack.chat('search everything');
      expect(r.capped).toBe(true);
      expect(r.iterations).toBe(5);
    } finally {
      stack.model.onRequest = undefined;
    }
    const total = stack.searx.requests.length - from;
    const perRound = [...seen.slice(1), total].map((n, i) => n - seen[i]!);
    // rounds 1-3 run 8 each; round 4 is over the turn's 24; round 5 is the last, not run
    expect(perRound).toEqual([8, 8, 8, 0, 0]);
    expect(total).toBe(24);
    const llm = (await stack.audit({ type: 'llm.called' })).slice(-5);
    expect(llm.map((row): unknown => row.payload.refused_calls)).toEqual([
      { refused: { over_round_cap: 8 }, dropped: 284, invented: [] },
      { refused: { over_round_cap: 8 }, dropped: 284, invented: [] },
      { refused: { over_round_cap: 8 }, dropped: 284, invented: [] },
      { refused: { over_turn_cap: 16 }, dropped: 284, invented: [] },
      { refused: { over_turn_cap: 16 }, dropped: 284, invented: [] },
    ]);
  });
});

describe('tool names a model invents', () => {
  const strange = [
    'evil\u001b[2J\u001b]0;owned\u0007name',
    'two\nlines',
    `long_${'x'.repeat(300)}`,
  ];
  const invented = (n: number): ScriptCall[] =>
    Array.from({ length: n }, (_, i) => ({
      tool: i < strange.length ? strange[i]! : `made_up_tool_${i}`,
      input: {},
    }));

  test('3,000 in one answer: /metrics keeps its length, no tool column holds one', async () => {
    // a first round of the same shape, so every metric series a round touches exists
    stack.model.learn('warm up', { rounds: [invented(1)] });
    await stack.chat('warm up');
    await stack.metrics(); // and /metrics' own series: the first scrape adds them
    const seqBefore = (await stack.audit({})).length;
    const before = metricLines(await stack.metrics());

    stack.model.learn('do it all', { rounds: [invented(3000)] });
    const r = await stack.chat('do it all');
    expect(r.reply).toBe('Done.');

    const rows = await stack.audit({});
    const after = metricLines(await stack.metrics());
    expect(after.length).toBe(before.length);
    expect(after.join('\n')).not.toContain('made_up_tool');
    expect(rows.length).toBeGreaterThan(seqBefore);
    const tools = new Set(rows.map((row) => row.tool ?? 'calculator'));
    expect([...tools].filter((t) => !SHIPPED.has(t))).toEqual([]);

    const round = rows.filter((row) => row.event_type === 'llm.called').at(-2);
    expect(round?.payload.tool_calls).toBe(3000);
    const listed = round?.payload.refused_calls as {
      refused: Record<string, number>;
      dropped: number;
      invented: string[];
    };
    expect(listed.refused).toEqual({ unknown_tool: 16 });
    expect(listed.dropped).toBe(3000 - 16);
    expect(listed.invented).toHaveLength(16);
    for (const name of listed.invented) {
      expect(name).not.toMatch(RAW_CONTROL);
      expect([...name].length).toBeLessThanOrEqual(65);
    }
    expect(listed.invented.slice(0, 3)).toEqual([
      'evil\\u001b[2J\\u001b]0;owned\\u0007name',
      'two\\nlines',
      `long_${'x'.repeat(59)}…`,
    ]);
    // the chat's answer names them escaped too
    for (const call of r.tool_calls) expect(call.tool).not.toMatch(RAW_CONTROL);
  });

  test('the names are escaped where the CLI prints the round', async () => {
    const r = await runCli([
      'audit',
      'query',
      '--type',
      'llm.called',
      '--data-dir',
      stack.dataDir,
      '--limit',
      '3',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('\\u001b[2J');
    expect(r.stdout).not.toMatch(RAW_CONTROL);
  });
});
