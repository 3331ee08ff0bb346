import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import { z } from 'zod';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { openAuditLog, type AuditLog } from '../../../src/audit/index.js';
import { createDispatcher } from '../../../src/brain/dispatch/index.js';
import { ToolGateway } from '../../../src/brain/gateway/index.js';
import { ConfirmationNotFoundError } from '../../../src/brain/gateway/errors.js';
import { startRegistry, type Registry } from '../../../src/brain/registry/index.js';
import { defineTool, serveTools, type ToolWorker } from '../../../src/legion/index.js';
import { openPolicyStore, type PolicyStore } from '../../../src/policy/index.js';
import { dispatchSubject, HEADERS } from '../../../src/protocol/index.js';
import { createEchoTool, ExecutionLog } from '../../fixtures/tools.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { waitFor } from '../../helpers/wait.js';

const caller = { actor: 'tester' };

function bulkyChat(extra: object) {
  return {
    message: 'fill',
    reply: 'fill',
    iterations: 0,
    capped: false,
    planner: 'none' as const,
    tool_calls: [],
    duration_ms: 0,
    ...extra,
  };
}

/** Stands in for web_search (whose policy rules carry obligations): echoes URLs as results. */
const linksTool = defineTool({
  name: 'web_search',
  version: '1.0.0',
  description: 'Test tool: returns the given URLs as search results.',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
  executionLocality: 'local',
  resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
  input: z.strictObject({ urls: z.array(z.string()).max(50) }),
  output: z.object({ results: z.array(z.object({ url: z.string(), title: z.string() })) }),
  handler: (input) => Promise.resolve({ results: input.urls.map((url) => ({ url, title: url })) }),
});

/** A tool whose author asks for a human on every call. */
const doorTool = defineTool({
  name: 'door',
  version: '1.0.0',
  description: 'Test tool: opens a door.',
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  executionLocality: 'local',
  resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
  hitl: 'confirm',
  input: z.strictObject({ id: z.string() }),
  output: z.object({ opened: z.string() }),
  handler: (input) => Promise.resolve({ opened: input.id }),
});

/** Stands in for call_service: answers with the service it was asked for. */
const serviceTool = defineTool({
  name: 'call_service',
  version: '1.0.0',
  description: 'Test tool: pretends to call a Home Assistant service.',
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  executionLocality: 'local',
  resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
  input: z.strictObject({
    domain: z.string(),
    service: z.string(),
    target: z.object({ entity_id: z.string() }).optional(),
    data: z.record(z.string(), z.unknown()).optional(),
  }),
  output: z.object({ service: z.string(), changed: z.boolean() }),
  handler: (input) =>
    Promise.resolve({ service: `${input.domain}.${input.service}`, changed: true }),
});

const POLICY = `version: 1
allowed_services:
  - service: light.turn_on
    id: kitchen-light
    target:
      entity_id: [light.kitchen]
allowed_tools:
  - tool: echo
    id: echo-ok
  - tool: web_search
    id: search-filtered
    input:
      domain_allowlist: [example.org]
      max_results: 2
  - tool: door
    id: door
  - tool: slow_echo
    id: confirm-echo
    confirm: true
`;

describe('tool gateway (real NATS, policy file, audit log, workers)', () => {
  let nats: TestNats;
  let nc: NatsConnection;
  let dir: string;
  let audit: AuditLog;
  let policy: PolicyStore;
  let registry: Registry;
  let gateway: ToolGateway;
  const log = new ExecutionLog();
  const workers: ToolWorker[] = [];

  /** Serves the five tools from one worker and waits until the registry lists them. */
  async function serveAll(): Promise<void> {
    const tools = [
      createEchoTool({ onExecute: log.record }),
      createEchoTool({ name: 'slow_echo', onExecute: log.record }),
      linksTool,
      doorTool,
      serviceTool,
    ];
    workers.push(await serveTools(tools, { nc: await nats.connect(), host: 'test' }));
    await waitFor(() => registry.tools().length === 5, 'the registry to learn 5 tools');
  }

  // The slow half once per file (a nats-server, the registry, the worker); each test gets
  // its own policy file, audit log and gateway (issue 30: one stack per file).
  beforeAll(async () => {
    nats = await startNats();
    nc = await nats.connect();
    registry = await startRegistry({ nc });
    await serveAll();
  });

  afterAll(async () => {
    await Promise.allSettled(workers.splice(0).map((w) => w.stop()));
    await registry?.close();
    await nats?.stop();
  });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'caesar-gateway-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    audit = openAuditLog({ path: join(dir, 'audit.db') });
    policy = await openPolicyStore({ path: join(dir, 'policy.yaml'), reloadSignal: null });
    gateway = newGateway();
  });

  afterEach(async () => {
    gateway?.close();
    policy?.close();
    await audit?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A gateway over this test's registry, policy and audit log. */
  function newGateway(options: { confirmationTtlMs?: number } = {}): ToolGateway {
    return new ToolGateway({
      tools: registry,
      policy,
      audit,
      dispatcher: createDispatcher({ nc }),
      callTimeoutMs: 5000,
      confirmationTtlMs: options.confirmationTtlMs ?? 60_000,
    });
  }

  const rowsOf = (decisionId: string) =>
    audit.query({ decisionId, order: 'oldest' }).map((r) => r.type);

  test('an allowed call is recorded before and after dispatch under one decision id', async () => {
    const r = await gateway.invoke('echo', { id: 'a1', text: 'hi' }, caller);
    expect(r.outcome).toBe('ok');
    expect(r.result).toMatchObject({ id: 'a1', text: 'hi' });
    expect(r.rule).toBe('echo-ok');
    expect(r.decision_id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(rowsOf(r.decision_id)).toEqual(['tool.called', 'tool.result']);
    const called = audit.query({ decisionId: r.decision_id, types: ['tool.called'] })[0];
    expect(called?.actor).toBe('tester');
    expect(called?.payload).toMatchObject({ decision: { rule: 'echo-ok', allowed: true } });
  });

  test('a Home Assistant call is recorded as service.called with its service and target', async () => {
    const input = {
      domain: 'light',
      service: 'turn_on',
      target: { entity_id: 'light.kitchen' },
      data: { brightness_pct: 40 },
    };
    const r = await gateway.invoke('call_service', input, caller);
    expect(r.outcome).toBe('ok');
    expect(r.rule).toBe('kitchen-light');
    expect(rowsOf(r.decision_id)).toEqual(['service.called', 'tool.result']);
    const called = audit.query({ decisionId: r.decision_id, types: ['service.called'] })[0];
    expect(called?.tool).toBe('call_service');
    expect(called?.payload).toMatchObject({
      service: 'light.turn_on',
      target: { entity_id: 'light.kitchen' },
      data: { brightness_pct: 40 },
      input,
      decision: { rule: 'kitchen-light', allowed: true },
    });
    const denied = await gateway.invoke(
      'call_service',
      { ...input, target: { entity_id: 'light.hall' } },
      caller,
    );
    expect(denied.outcome).toBe('denied');
    expect(rowsOf(denied.decision_id)).toEqual(['tool.denied']);
  });

  test('the decision id travels in the dispatch headers, with a trace context rooted at it', async () => {
    const tap = await nats.connect();
    const seen: { decision?: string; traceparent?: string }[] = [];
    tap.subscribe(dispatchSubject('echo'), {
      callback: (_err, msg) => {
        seen.push({
          decision: msg.headers?.get(HEADERS.decisionId),
          traceparent: msg.headers?.get(HEADERS.traceparent),
        });
      },
    });
    await tap.flush();
    const r = await gateway.invoke('echo', { id: 'h1' }, caller);
    await waitFor(() => seen.length === 1, 'the tap to see the dispatch');
    expect(seen[0]?.decision).toBe(r.decision_id);
    const traceId = r.decision_id.replaceAll('-', '');
    expect(seen[0]?.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    await tap.close();
  });

  test('an unlisted tool is denied with tool.denied and a reason, and never runs', async () => {
    const r = await gateway.invoke('calculator', { expression: '1+1' }, caller);
    expect(r.outcome).toBe('denied');
    expect(r.reason).toMatch(/calculator/);
    expect(rowsOf(r.decision_id)).toEqual(['tool.denied']);
  });

  test('input that breaks the tool schema is refused with field paths before dispatch', async () => {
    const r = await gateway.invoke('echo', { id: 'x', bogus: 1 }, caller);
    expect(r.outcome).toBe('failed');
    expect(r.error?.code).toBe('invalid_input');
    expect(r.error?.details).toEqual([{ path: 'bogus', message: "unknown field 'bogus'" }]);
    expect(log.timesRun('x')).toBe(0);
    // the policy allowed it: a schema failure is not a denial (ADR 0088)
    const rows = audit.query({ decisionId: r.decision_id, order: 'oldest' });
    expect(rows.map((row) => [row.type, row.outcome])).toEqual([
      ['tool.input_rejected', 'rejected'],
    ]);
    expect(rows[0]?.payload).toMatchObject({
      code: 'invalid_input',
      decision: { allowed: true },
      problems: [{ path: 'bogus', message: "unknown field 'bogus'" }],
    });
  });

  test('bad input to a call the policy denies is answered as the denial: nothing about the tool leaks', async () => {
    // the brain checks the input first (the upper-case domain breaks the wire schema), but a
    // caller the policy refuses learns only that: the same answer as for a tool not running
    const r = await gateway.invoke('call_service', { domain: 'Lock', service: 'unlock' }, caller);
    expect(r.outcome).toBe('denied');
    expect(r.reason).toContain('lock.unlock');
    expect(r.error).toBeUndefined();
    const rows = audit.query({ decisionId: r.decision_id, order: 'oldest' });
    expect(rows.map((row) => [row.type, (row.payload as { code?: string }).code])).toEqual([
      ['tool.denied', 'denied'],
    ]);
  });

  test('obligations drop results outside the domain allowlist and cap their number', async () => {
    const urls = [
      'https://evil.example.com/a',
      'https://example.org/1',
      'https://docs.example.org/2',
      'https://example.org/3',
    ];
    const r = await gateway.invoke('web_search', { urls }, caller);
    expect(r.outcome).toBe('ok');
    expect((r.result as { results: { url: string }[] }).results.map((x) => x.url)).toEqual([
      'https://example.org/1',
      'https://docs.example.org/2',
    ]);
    const row = audit.query({ decisionId: r.decision_id, types: ['tool.result'] })[0];
    expect(JSON.stringify(row?.payload)).not.toContain('evil.example.com');
  });

  test('a confirm rule holds the call; approval runs it exactly once', async () => {
    const r = await gateway.invoke('slow_echo', { id: 'c1' }, caller);
    expect(r.outcome).toBe('confirmation_required');
    expect(r.confirmation?.summary).toBe('slow_echo with {"id":"c1"}');
    expect(log.timesRun('c1')).toBe(0);
    const id = r.confirmation?.id ?? '';
    const approved = await gateway.confirm(id, true, { actor: 'approver' });
    expect(approved.outcome).toBe('ok');
    expect(approved.decision_id).toBe(r.decision_id);
    expect(log.timesRun('c1')).toBe(1);
    await expect(gateway.confirm(id, true, caller)).rejects.toBeInstanceOf(
      ConfirmationNotFoundError,
    );
    expect(log.timesRun('c1')).toBe(1);
    expect(rowsOf(r.decision_id)).toEqual([
      'tool.confirmation_requested',
      'tool.confirmed',
      'tool.called',
      'tool.result',
    ]);
    const confirmed = audit.query({ decisionId: r.decision_id, types: ['tool.confirmed'] })[0];
    expect(confirmed?.actor).toBe('approver');
  });

  test('a rejected confirmation never runs', async () => {
    const r = await gateway.invoke('slow_echo', { id: 'c2' }, caller);
    const rejected = await gateway.confirm(r.confirmation?.id ?? '', false, caller);
    expect(rejected.outcome).toBe('rejected');
    expect(log.timesRun('c2')).toBe(0);
    expect(rowsOf(r.decision_id)).toEqual(['tool.confirmation_requested', 'tool.rejected']);
  });

  test('an expired confirmation never runs and is audited as expired', async () => {
    const short = newGateway({ confirmationTtlMs: 50 });
    try {
      const r = await short.invoke('slow_echo', { id: 'c3' }, caller);
      const row = await waitFor(
        () => audit.query({ decisionId: r.decision_id, types: ['tool.rejected'] })[0],
        'the expiry to be audited',
      );
      expect(row.payload).toMatchObject({ reason: 'expired' });
      await expect(short.confirm(r.confirmation?.id ?? '', true, caller)).rejects.toThrow(
        /no pending confirmation/,
      );
      expect(log.timesRun('c3')).toBe(0);
    } finally {
      short.close();
    }
  });

  test('a policy reload voids pending confirmations', async () => {
    const r = await gateway.invoke('slow_echo', { id: 'c4' }, caller);
    writeFileSync(join(dir, 'policy.yaml'), `${POLICY}  - tool: calculator\n    id: extra\n`);
    const event = await policy.reload();
    expect(event.type).toBe('policy.reloaded');
    gateway.policyReloaded(policy.policy.sha256);
    await expect(gateway.confirm(r.confirmation?.id ?? '', true, caller)).rejects.toBeInstanceOf(
      ConfirmationNotFoundError,
    );
    expect(log.timesRun('c4')).toBe(0);
    const row = await waitFor(
      () => audit.query({ decisionId: r.decision_id, types: ['tool.rejected'] })[0],
      'the void to be audited',
    );
    expect(row.payload).toMatchObject({ reason: 'policy_reloaded' });
  });

  test('a tool that declares hitl: confirm waits for a human even when the policy allows it', async () => {
    const r = await gateway.invoke('door', { id: 'front' }, caller);
    expect(r.outcome).toBe('confirmation_required');
    expect(r.reason).toMatch(/hitl: confirm/);
    const ok = await gateway.confirm(r.confirmation?.id ?? '', true, caller);
    expect(ok.result).toEqual({ opened: 'front' });
  });

  test('a tool with no live instance fails with no_worker, after the policy allowed it', async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    try {
      await waitFor(() => registry.tools().length === 0, 'the registry to drop the tools');
      const r = await gateway.invoke('echo', { id: 'gone' }, caller);
      expect(r.outcome).toBe('failed');
      expect(r.error?.code).toBe('no_worker');
      expect(rowsOf(r.decision_id)).toEqual(['tool.failed']);
    } finally {
      await serveAll(); // the file's worker again, for the tests after this one
    }
  });

  test('when the audit log cannot be written (disk full), nothing is dispatched', async () => {
    await audit.close();
    audit = openAuditLog({ path: join(dir, 'audit.db'), maxDatabaseBytes: 64 * 1024 });
    // fill the capped "disk" with big rows, then small ones, until it refuses even those
    for (const size of [8000, 500, 1]) {
      for (let i = 0; i < 1000; i++) {
        const payload = bulkyChat({ input: 'x'.repeat(size) });
        const full = await audit.append({ type: 'chat.completed', actor: 't', payload }).then(
          () => false,
          () => true,
        );
        if (full) break;
      }
    }
    const failing = newGateway();
    try {
      const r = await failing.invoke('echo', { id: 'ro' }, caller);
      expect(r.outcome).toBe('failed');
      expect(r.error?.code).toBe('audit_unavailable');
      expect(log.timesRun('ro')).toBe(0);
    } finally {
      failing.close();
    }
  });
});
