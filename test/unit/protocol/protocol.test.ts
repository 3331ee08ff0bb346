import { describe, expect, test } from 'vitest';
import {
  canonicalJson,
  dispatchSubject,
  DispatchReplySchema,
  DispatchRequestSchema,
  inboxPrefix,
  preflightSubject,
  serviceName,
  srvSubject,
  toolFromServiceName,
} from '../../../src/protocol/index.js';
import { SubjectTokenError } from '../../../src/protocol/subjects.js';

describe('subject builders', () => {
  test.each([
    ['calculator', 'caesar.dispatch.tool.calculator'],
    ['web_search', 'caesar.dispatch.tool.web_search'],
    ['a', 'caesar.dispatch.tool.a'],
    // an action of a tool with several (ADR 0092): one token more
    ['home_assistant.entities', 'caesar.dispatch.tool.home_assistant.entities'],
    // every tool and every action: `>`, since `*` would miss the actions
    ['*', 'caesar.dispatch.tool.>'],
  ])('dispatchSubject(%s) is %s', (tool, subject) => {
    expect(dispatchSubject(tool)).toBe(subject);
  });

  test.each([
    '',
    'Calculator',
    'calc.evil.more',
    'calc.',
    '.evil',
    'calc..evil',
    'calc.Evil',
    'calc.1x',
    'calc.*',
    'calc.>',
    `calc.${'x'.repeat(60)}`,
    'calc>',
    'calc *',
    '1calc',
    'calc-x',
    'x'.repeat(65),
    '>',
  ])('tool name %j is refused by every builder', (tool) => {
    expect(() => dispatchSubject(tool)).toThrow(SubjectTokenError);
    expect(() => preflightSubject(tool)).toThrow(SubjectTokenError);
    expect(() => serviceName(tool)).toThrow(SubjectTokenError);
  });

  test("an action is an instance of its tool's service; preflight has the same shape", () => {
    expect(serviceName('home_assistant.entities')).toBe('caesar-home_assistant');
    expect(serviceName('home_assistant.call_service')).toBe('caesar-home_assistant');
    expect(preflightSubject('home_assistant.entities')).toBe(
      'caesar.preflight.tool.home_assistant.entities',
    );
    expect(preflightSubject('*')).toBe('caesar.preflight.tool.>');
  });

  test('service names round-trip to tool names and ignore foreign services', () => {
    expect(toolFromServiceName(serviceName('calculator'))).toBe('calculator');
    expect(toolFromServiceName('billing')).toBeUndefined();
    expect(toolFromServiceName('caesar-Bad.Name')).toBeUndefined();
  });

  test('$SRV subjects follow ADR-32 and check their tokens', () => {
    expect(srvSubject('PING')).toBe('$SRV.PING');
    expect(srvSubject('INFO', 'caesar-calculator')).toBe('$SRV.INFO.caesar-calculator');
    expect(srvSubject('STATS', 'caesar-calculator', 'abc123')).toBe(
      '$SRV.STATS.caesar-calculator.abc123',
    );
    expect(() => srvSubject('INFO', 'a.b')).toThrow(SubjectTokenError);
    expect(() => srvSubject('INFO', 'svc', 'id.with.dots')).toThrow(SubjectTokenError);
  });

  test('inbox prefixes take one identity token', () => {
    expect(inboxPrefix()).toBe('_INBOX');
    expect(inboxPrefix('brain')).toBe('_INBOX.brain');
    expect(() => inboxPrefix('a.b')).toThrow(SubjectTokenError);
  });
});

describe('envelopes', () => {
  const good = {
    v: 1,
    tool: 'calculator',
    input: { expression: '1+1' },
    decision_id: 'd1',
    deadline: 1,
  };

  test('a well-formed request parses', () => {
    expect(DispatchRequestSchema.parse(good)).toMatchObject(good);
  });

  test.each([
    [{ ...good, v: 2 }, 'v'],
    [{ ...good, tool: 'Bad' }, 'tool'],
    [{ ...good, decision_id: '' }, 'decision_id'],
    [{ ...good, deadline: 1.5 }, 'deadline'],
  ])('a request with a bad %# field is refused', (req, path) => {
    const r = DispatchRequestSchema.safeParse(req);
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual([path]);
  });

  test('a failure reply needs a catalogue code', () => {
    const reply = {
      v: 1,
      success: false,
      error: { code: 'nope', message: 'x', retryable: false },
      duration_ms: 0,
    };
    expect(DispatchReplySchema.safeParse(reply).success).toBe(false);
    reply.error.code = 'timeout';
    expect(DispatchReplySchema.safeParse(reply).success).toBe(true);
  });
});

test('canonical JSON sorts keys at every depth and drops undefined', () => {
  expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined } })).toBe(
    '{"a":{"d":[{"y":2,"z":1}]},"b":1}',
  );
});
