import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { describe, expect, test } from 'vitest';
import {
  CaesarError,
  WIRE_ERROR_CODES,
  errorMessage,
  isWireErrorCode,
} from '../../../src/errors/index.js';
import { ERROR_CATALOGUE } from '../../../src/errors/catalogue.js';
import type { ErrorCode } from '../../../src/errors/caesar-error.js';
import { renderErrorsDoc } from '../../../src/errors/reference.js';
import { mapError } from '../../../src/brain/http/error-map.js';
import { ConversationStoreError } from '../../../src/brain/conversations/errors.js';
import { PolicyLoadError } from '../../../src/policy/index.js';
import { ErrorBodySchema } from '../../../src/protocol/index.js';
import { productSources, ROOT } from '../../helpers/sources.js';

const CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

describe('the one error catalogue', () => {
  test.each(CODES)('%s has a status, a template, a meaning and a next step', (code) => {
    const e = ERROR_CATALOGUE[code];
    expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
    expect(e.status).toBeGreaterThanOrEqual(400);
    expect(e.status).toBeLessThan(600);
    expect(e.message).not.toBe('');
    expect(e.message).toMatch(/^(?:[^{}]|\{[a-zA-Z]+\})*$/);
    expect(e.summary.length).toBeGreaterThan(10);
    expect(e.fix.length).toBeGreaterThan(3);
  });

  test('only worker and brain codes travel on the wire', () => {
    const wire = CODES.filter((c) => ['worker', 'brain'].includes(ERROR_CATALOGUE[c].kind));
    expect(WIRE_ERROR_CODES).toEqual(wire);
    const body = { message: 'x', retryable: false };
    expect(ErrorBodySchema.safeParse({ ...body, code: 'no_worker' }).success).toBe(true);
    expect(ErrorBodySchema.safeParse({ ...body, code: 'audit_locked' }).success).toBe(false);
    expect(isWireErrorCode('invalid_input')).toBe(true);
    expect(isWireErrorCode('policy_invalid')).toBe(false);
    expect(isWireErrorCode('toString')).toBe(false);
  });

  test('CaesarError.of fills the template; status and retryable come from the catalogue', () => {
    const err = CaesarError.of('no_worker', {
      tool: 'calculator',
      start: 'start it: `caesar legion serve-tool calculator`',
    });
    expect(err.message).toBe(
      'no live instance of calculator: start it: `caesar legion serve-tool calculator`',
    );
    expect(err).toMatchObject({ code: 'no_worker', status: 503, retryable: true });
    expect(CaesarError.is(err, 'no_worker')).toBe(true);
    expect(CaesarError.is(err, 'bad_reply')).toBe(false);
    expect(CaesarError.is({ code: 'no_worker' }, 'no_worker')).toBe(false);
    expect(errorMessage('audit_closed', { path: '/var/a.db' })).toBe(
      'audit log /var/a.db is closed',
    );
  });

  test('every module error is a CaesarError with its catalogue code', () => {
    const load = new PolicyLoadError('policy.yaml', []);
    expect(load).toBeInstanceOf(CaesarError);
    expect(load).toMatchObject({ code: 'policy_invalid', status: 500, retryable: false });
  });
});

describe('docs/errors.md', () => {
  const file = join(ROOT, 'docs/errors.md');

  test('its tables are the catalogue (regenerate: node dist/src/errors/gen-docs.js)', async () => {
    const current = await readFile(file, 'utf8');
    expect(renderErrorsDoc(current)).toBe(current);
    for (const code of CODES) expect(current).toContain(`| \`${code}\` `);
  });

  test('is prettier-formatted as generated, so `npm run format` cannot make it drift', async () => {
    const text = renderErrorsDoc(await readFile(file, 'utf8'));
    const options = (await resolveConfig(file)) ?? {};
    expect(await format(text, { ...options, filepath: file })).toBe(text);
  });
});

describe('over HTTP', () => {
  test('a coded error is answered with its catalogue status and code', () => {
    const m = mapError(CaesarError.of('session_not_found', { id: '"abc"' }), 1024);
    expect(m).toMatchObject({ status: 404, code: 'session_not_found', unexpected: false });
    expect(m.message).toBe('session "abc" not found');
  });

  test("a local 5xx shows the catalogue's meaning, not its message (which names files)", () => {
    const err = new ConversationStoreError('conversations_failed', '/srv/caesar/conversations.db', {
      what: 'append',
      outcome: 'failed',
      reason: 'SQLITE_READONLY',
    });
    expect(err.message).toBe(
      'conversation store /srv/caesar/conversations.db: append failed: SQLITE_READONLY',
    );
    const m = mapError(err, 1024);
    expect(m).toMatchObject({ status: 503, code: 'conversations_failed', unexpected: true });
    expect(m.message).toBe(ERROR_CATALOGUE.conversations_failed.summary);
    expect(m.message).not.toContain('/srv');
  });

  test('internal is always "internal error"', () => {
    const m = mapError(new CaesarError('internal', 'secret detail of a bug'), 1024);
    expect(m).toEqual({
      status: 500,
      code: 'internal',
      message: 'internal error',
      unexpected: true,
    });
  });
});

describe('guards: one catalogue, typed errors', () => {
  const files = productSources();

  /** Signals thrown and caught inside one module, never seen outside it. */
  const MODULE_SIGNALS = new Set([
    'src/text/yaml-walk.ts:YamlBoundBreak',
    'src/brain/intents/sentence.ts:SentenceSyntaxError',
    'src/brain/intents/compile-sentence.ts:CompileProblem',
    // caught inside their worker and turned into a coded error there (a step budget becomes a
    // note, a dead thread becomes internal or invalid_input): never thrown past it
    'workers/calendar_read/recur.ts:StepBudgetExceeded',
    'workers/calculator/eval-thread-handle.ts:ThreadDiedError',
    // a zone past its bounds, caught by the calendar scan, which falls back to another clock
    'workers/calendar_read/vtimezone.ts:UnusableZoneError',
    // how a pooled thread's task ended, turned into backend_error / internal by the pool
    'src/legion/task-thread-handle.ts:ThreadEndedError',
    'src/legion/task-thread-handle.ts:TaskFailedError',
    // a flag's unusable value, caught by the command's runner and printed as a usage error
    'src/cli/commands/nats-config.run.ts:UsageError',
    'src/cli/commands/nats-compose.run.ts:ComposeSecretsError',
    // a placeholder that cannot be filled, caught by fillPlaceholders and returned as the
    // call's problem (invalid_input)
    'src/brain/agent/placeholders.ts:Unfillable',
    // a model's answer that is not its wire format, made the bad_response LlmError by toLlmError
    'src/brain/llm/wire.ts:WireFormatError',
  ]);

  test('every error class extends CaesarError (a handful of module-internal signals aside)', () => {
    expect(files.length).toBeGreaterThan(100);
    const plain = files.flatMap(({ file, text }) =>
      [...text.matchAll(/class (\w+)(?:<[^>]*>)? extends (?:Error|TypeError|RangeError)\b/g)]
        .map((m) => `${file}:${m[1]}`)
        .filter((hit) => hit !== 'src/errors/caesar-error.ts:CaesarError'),
    );
    expect(plain.filter((hit) => !MODULE_SIGNALS.has(hit))).toEqual([]);
  });

  /**
   * The coded error classes written by hand, each with its reason (ADR 0087); every other one
   * is made by `errorClass`. A new hand-written class fails here until it has a reason.
   */
  const SDK = "the worker SDK's public API: a tool author throws it with words of their own";
  const HAND_WRITTEN = new Map<string, string>([
    ['src/protocol/errors.ts:InvalidInputError', SDK],
    ['src/protocol/errors.ts:NotConfiguredError', SDK],
    ['src/protocol/errors.ts:BackendError', SDK],
    ['src/protocol/errors.ts:UpstreamEmptyError', SDK],
    ['src/protocol/errors.ts:TimeoutError', SDK],
    [
      'src/cli/brain-client/client.ts:ApiError',
      "another process's answer: a code this build may not know, words the brain wrote",
    ],
    [
      'workers/calculator/screen.ts:ExpressionRejectedError',
      "a tool's own subclass of the SDK's InvalidInputError, as a tool author writes one",
    ],
  ]);

  test('coded error classes are generated from the catalogue, not written by hand', () => {
    const written = files.flatMap(({ file, text }) =>
      [...text.matchAll(/class (\w+)(?:<[^>]*>)? extends (\w+)\b/g)]
        .filter((m) => m[2] !== 'Error' && m[2] !== 'TypeError' && m[2] !== 'RangeError')
        .filter((m) => /Error$|Failure$/.test(m[2] ?? ''))
        .map((m) => `${file}:${m[1]}`)
        .filter((hit) => !hit.startsWith('src/errors/')),
    );
    expect(written.filter((hit) => !HAND_WRITTEN.has(hit))).toEqual([]);
    expect([...HAND_WRITTEN.keys()].filter((hit) => !written.includes(hit))).toEqual([]);
  });

  test('no module keeps a code list or status table of its own', () => {
    const tables = files.filter(
      ({ file, text }) =>
        !file.startsWith('src/errors/') &&
        /\b[A-Z_]*(?:ERROR_STATUS\s*=|ERROR_CODES\s*=\s*\[|ERROR_CATALOGUE\s*=)/.test(text),
    );
    expect(tables.map((t) => t.file)).toEqual([]);
  });

  test("no code reads one of the catalogue's codes off an untyped value", () => {
    const quoted = new RegExp(`'(?:${CODES.join('|')})'`);
    const duck = files.flatMap(({ file, text }) =>
      text
        .split('\n')
        .map((line, i) => ({ line, at: `${file}:${i + 1}` }))
        .filter(({ line }) => /as \{ code\??: |as NodeJS\.ErrnoException/.test(line))
        .filter(({ line }) => quoted.test(line))
        .map(({ at }) => at),
    );
    expect(duck).toEqual([]);
  });
});
