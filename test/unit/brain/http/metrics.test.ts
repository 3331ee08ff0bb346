import { describe, expect, test } from 'vitest';
import { BrainMetrics } from '../../../../src/brain/http/index.js';
import { auth, harness } from './harness.js';

describe('BrainMetrics', () => {
  test('GET /metrics shows every named series after the core recorded calls', async () => {
    await using h = await harness();
    let instances: Array<[string, number]> = [
      ['calculator', 2],
      ['web_search', 1],
    ];
    h.metrics.setInstanceSource(() => instances);
    h.metrics.toolCall('calculator', 'ok', 12);
    h.metrics.toolCall('shell', 'denied', 0.4);
    h.metrics.decision('allowed_tools[0]', 'allow');
    h.metrics.dispatch('calculator', 0.3);
    h.metrics.auditAppend(1.2);
    h.metrics.chat('intent', 40);
    h.metrics.replyRefused('call_service', 'bad_signature');
    h.metrics.grantResent('calculator');
    await h.app.inject({
      method: 'POST',
      url: '/v1/tools/calculator/invoke',
      headers: auth(),
      payload: { input: {} },
    });

    const text = (await h.app.inject({ url: '/metrics', headers: auth() })).body;
    for (const line of [
      'caesar_tool_calls_total{tool="calculator",outcome="ok"} 1',
      'caesar_tool_calls_total{tool="shell",outcome="denied"} 1',
      'caesar_tool_call_duration_seconds_count{tool="calculator"} 1',
      'caesar_policy_decisions_total{rule="allowed_tools[0]",outcome="allow"} 1',
      'caesar_dispatch_duration_seconds_bucket{le="0.0005",tool="calculator"} 1',
      'caesar_dispatch_duration_seconds_bucket{le="30",tool="calculator"} 1',
      'caesar_audit_append_duration_seconds_count 1',
      'caesar_chat_duration_seconds_count{planner="intent"} 1',
      'caesar_tool_instances{tool="calculator"} 2',
      'caesar_replies_refused_total{tool="call_service",reason="bad_signature"} 1',
      'caesar_grants_resent_total{tool="calculator"} 1',
      'caesar_tool_instances{tool="web_search"} 1',
      'caesar_http_requests_total{method="POST",route="/v1/tools/:name/invoke",status="200"} 1',
      'caesar_http_request_duration_seconds_count{method="POST",route="/v1/tools/:name/invoke"} 1',
    ]) {
      expect(text).toContain(line);
    }
    expect(text).toMatch(/^caesar_process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^caesar_nodejs_eventloop_lag_seconds \d/m);
    expect(text).toMatch(/^caesar_process_resident_memory_bytes \d/m);
    expect(text).not.toContain('/v1/tools/calculator/invoke'); // route patterns only, never URLs

    instances = [['calculator', 1]];
    const again = (await h.app.inject({ url: '/metrics', headers: auth() })).body;
    expect(again).toContain('caesar_tool_instances{tool="calculator"} 1');
    expect(again).not.toContain('caesar_tool_instances{tool="web_search"}');
  });

  test('unknown routes share one label instead of one per URL', async () => {
    await using h = await harness();
    for (const url of ['/a', '/b', '/c?x=1']) await h.app.inject({ url, headers: auth() });
    const text = await h.metrics.render();
    expect(text).toContain(
      'caesar_http_requests_total{method="GET",route="(unmatched)",status="404"} 3',
    );
  });

  test('two instances keep separate registries', async () => {
    const a = new BrainMetrics();
    const b = new BrainMetrics();
    a.toolCall('calculator', 'ok', 1);
    expect(await a.render()).toContain('caesar_tool_calls_total{tool="calculator",outcome="ok"} 1');
    expect(await b.render()).not.toContain('caesar_tool_calls_total{tool="calculator"');
  });
});
