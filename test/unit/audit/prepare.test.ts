import { describe, expect, test } from 'vitest';
import { AUDIT_EVENT_TYPES } from '../../../src/audit/event-names.js';
import { AUDIT_EVENT_CATALOGUE, type AuditEventInput } from '../../../src/audit/events.js';
import { AuditEventError } from '../../../src/audit/errors.js';
import { ClampLimitsSchema } from '../../../src/audit/limits.js';
import { prepareRow } from '../../../src/audit/prepare.js';
import { MAX_COLUMN_CHARS } from '../../../src/audit/row.js';

const limits = ClampLimitsSchema.parse({});
const TS = '2025-01-01T00:00:00.000Z';
const decision = { allowed: true, reason: 'ok', rule: 'r', policy_sha256: 'p' };
const base = { actor: 'cli', tool: 'calculator', decisionId: 'd1' };

describe('prepareRow', () => {
  test('fills the default outcome from the catalogue', () => {
    const row = prepareRow(
      {
        ...base,
        type: 'tool.denied',
        payload: { input: {}, decision: { ...decision, allowed: false }, code: 'denied' },
      },
      TS,
      limits,
    );
    expect(row.outcome).toBe('denied');
  });

  test.each<[string, Record<string, unknown>, RegExp]>([
    ['unknown type', { type: 'tool.exploded', payload: {} }, /not in the audit event catalogue/],
    ['internal type', { type: 'audit.retention', payload: {} }, /written only by the audit log/],
    [
      'outcome not allowed for the type',
      { type: 'tool.called', outcome: 'denied', payload: { input: {}, decision } },
      /outcome "denied"/,
    ],
    [
      'missing actor',
      { type: 'tool.called', actor: '', payload: { input: {}, decision } },
      /actor is required/,
    ],
    [
      'tool call without decision id',
      { type: 'tool.called', decisionId: null, payload: { input: {}, decision } },
      /decisionId are required/,
    ],
    [
      'payload of the wrong shape',
      { type: 'tool.called', payload: { input: {}, decision: { allowed: 'yes' } } },
      /payload decision\.allowed/,
    ],
  ])('rejects %s with AuditEventError', (_name, override, message) => {
    const event = { ...base, ...override } as AuditEventInput;
    expect(() => prepareRow(event, TS, limits)).toThrow(AuditEventError);
    expect(() => prepareRow(event, TS, limits)).toThrow(message);
  });

  test('caps column text and replaces lone surrogates', () => {
    const row = prepareRow(
      {
        ...base,
        actor: 'a'.repeat(1000),
        sessionId: 'x\uD800y',
        type: 'tool.confirmed',
        payload: { confirmation_id: 'c' },
      },
      TS,
      limits,
    );
    expect(row.actor).toHaveLength(MAX_COLUMN_CHARS);
    expect(row.sessionId).toBe('x\uFFFDy');
  });

  test('every catalogue type has outcomes and a payload schema', () => {
    for (const type of AUDIT_EVENT_TYPES) {
      const entry = AUDIT_EVENT_CATALOGUE[type];
      expect(entry.outcomes.length).toBeGreaterThan(0);
      expect(typeof entry.payload.safeParse).toBe('function');
    }
    expect(AUDIT_EVENT_TYPES).toEqual([
      'tool.called',
      'service.called',
      'tool.denied',
      'tool.input_rejected',
      'tool.result',
      'tool.failed',
      'tool.confirmation_requested',
      'tool.confirmed',
      'tool.rejected',
      'job.submitted',
      'job.started',
      'job.progress',
      'job.finished',
      'job.failed',
      'chat.completed',
      'llm.called',
      'policy.reloaded',
      'policy.reload_failed',
      'registry.spec_changed',
      'worker.restarted',
      'audit.retention',
    ]);
  });

  test('tool.input_rejected needs the problems and says invalid_input; outcome rejected only', () => {
    const payload = {
      input: { bogus: 1 },
      decision: { allowed: true, reason: 'ok', rule: 'r', policy_sha256: 'p' },
      code: 'invalid_input' as const,
      problems: [{ path: 'bogus', message: "unknown field 'bogus'" }],
    };
    const row = prepareRow({ ...base, type: 'tool.input_rejected', payload }, TS, limits);
    expect(row.outcome).toBe('rejected');
    expect(() =>
      prepareRow(
        { ...base, type: 'tool.input_rejected', payload: { ...payload, problems: undefined } },
        TS,
        limits,
      ),
    ).toThrow(/problems/);
    expect(() =>
      prepareRow({ ...base, type: 'tool.input_rejected', outcome: 'denied', payload }, TS, limits),
    ).toThrow(/outcome/);
  });

  const restart = {
    name: 'calculator',
    kind: 'worker' as const,
    reason: 'unresponsive' as const,
    detail: 'no heartbeat for 10.0 s',
    count: 1,
    exit: { code: null, signal: 'SIGKILL' },
    at: TS,
    delay_ms: 250,
  };

  test('worker.restarted carries the supervisor message as sent, outcome error', () => {
    const row = prepareRow(
      { type: 'worker.restarted', actor: 'brain', tool: 'calculator', payload: restart },
      TS,
      limits,
    );
    expect(row.outcome).toBe('error');
    expect(JSON.parse(row.payload)).toEqual(restart);
  });

  test.each<[string, Record<string, unknown>, RegExp]>([
    ['an unknown field', { ...restart, extra: 1 }, /payload extra: unknown field 'extra'/],
    ['a count of 0', { ...restart, count: 0 }, /payload count/],
    ['an unknown reason', { ...restart, reason: 'bored' }, /payload reason/],
    ['a time that is not ISO-8601', { ...restart, at: 'yesterday' }, /payload at/],
  ])('worker.restarted refuses %s', (_name, payload, message) => {
    const event = { type: 'worker.restarted', actor: 'brain', payload } as AuditEventInput;
    expect(() => prepareRow(event, TS, limits)).toThrow(message);
  });
});
