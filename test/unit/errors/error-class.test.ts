import { describe, expect, expectTypeOf, test } from 'vitest';
import { CaesarError, errorClass, errorFamily, errorMessage } from '../../../src/errors/index.js';
import { errorClassName } from '../../../src/errors/error-class.js';
import { ERROR_CATALOGUE } from '../../../src/errors/catalogue.js';
import type { ErrorCode } from '../../../src/errors/caesar-error.js';
import { AuditError, AuditLockedError, AuditWriteError } from '../../../src/audit/errors.js';
import { PolicyError, PolicyLoadError, PolicyTooLargeError } from '../../../src/policy/errors.js';

describe('errorClass: classes generated from the catalogue', () => {
  test('name, code, status, retryable and message come from the catalogue entry', () => {
    const Closed = errorClass('audit_closed');
    const err = new Closed({ path: '/var/a.db' });
    expect(err).toBeInstanceOf(Closed);
    expect(err).toBeInstanceOf(CaesarError);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({
      name: 'AuditClosedError',
      code: 'audit_closed',
      status: ERROR_CATALOGUE.audit_closed.status,
      retryable: ERROR_CATALOGUE.audit_closed.retryable,
      message: 'audit log /var/a.db is closed',
    });
    expect(Closed.name).toBe('AuditClosedError');
    expect(Closed.codes).toEqual(['audit_closed']);
  });

  test("the catalogue's `name` keeps a class's exported name; the code's otherwise", () => {
    expect(errorClassName('audit_closed')).toBe('AuditClosedError');
    expect(errorClassName('policy_invalid')).toBe('PolicyLoadError');
    expect(errorClassName('policy_too_large')).toBe('PolicyTooLargeError');
    expect(new PolicyLoadError('p.yaml', []).name).toBe('PolicyLoadError');
  });

  test('a build function keeps the old constructor and adds typed fields', () => {
    const err = new PolicyTooLargeError('/etc/caesar/policy.yaml', 600_000, 524_288);
    expect(err).toMatchObject({ code: 'policy_too_large', file: '/etc/caesar/policy.yaml' });
    expect(err.bytes).toBe(600_000);
    expect(err.message).toBe(
      errorMessage('policy_too_large', {
        file: '/etc/caesar/policy.yaml',
        size: 600_000,
        limit: 524_288,
      }),
    );
    const busy = Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' });
    const write = new AuditWriteError('disk I/O error', { cause: busy, batchSize: 3 });
    expect(write).toMatchObject({ retryable: true, sqliteCode: 'SQLITE_BUSY', batchSize: 3 });
    expect(write.message).toBe('audit log write failed: disk I/O error');
    expect(write.cause).toBe(busy);
  });

  test('a class for several codes takes its code from the build function', () => {
    const Target = errorClass(
      ['api_url_invalid', 'runtime_file_invalid'] as const,
      (url: string) =>
        url.startsWith('/')
          ? { code: 'runtime_file_invalid' as const, params: { file: url, reason: 'not JSON' } }
          : { code: 'api_url_invalid' as const, params: { url, reason: 'not http(s)' } },
    );
    expect(new Target('ftp://x')).toMatchObject({
      code: 'api_url_invalid',
      name: 'ApiTargetError',
    });
    expect(new Target('/var/runtime.json').message).toBe('/var/runtime.json: not JSON');
  });

  test('a class for several codes with no build function takes the code, then its values', () => {
    const Target = errorClass(['token_not_found', 'api_url_invalid'] as const);
    const err = new Target('api_url_invalid', { url: 'ftp://x', reason: 'not http(s)' });
    expect(err).toMatchObject({
      code: 'api_url_invalid',
      message: 'bad API URL ftp://x: not http(s)',
    });
    expectTypeOf<ConstructorParameters<typeof Target>[1]>().toEqualTypeOf<
      | Readonly<Record<'name' | 'file' | 'names' | 'next', string | number>>
      | Readonly<Record<'url' | 'reason', string | number>>
    >();
    const wrong = { name: 'x', file: 'y', names: '', next: '' };
    // @ts-expect-error -- the values are those of the code given first
    expect(() => new Target('api_url_invalid', wrong)).not.toThrow();
  });

  test("a family is what `instanceof` tests for a module's errors, by code", () => {
    const locked = new AuditLockedError('/var/audit.db.lock', { pid: 12 });
    expect(locked).toBeInstanceOf(AuditError);
    expect(locked).not.toBeInstanceOf(PolicyError);
    expect(new PolicyLoadError('p.yaml', [])).toBeInstanceOf(PolicyError);
    expect(CaesarError.of('audit_closed', { path: 'x' })).toBeInstanceOf(AuditError);
    expect({ code: 'audit_closed' }).not.toBeInstanceOf(AuditError);
    const family = errorFamily('Both', ['audit_closed', 'policy_closed']);
    expect(family.codes).toEqual(['audit_closed', 'policy_closed']);
  });

  test('the template decides the values: a missing or an extra one does not compile', () => {
    const Port = errorClass('api_port_taken');
    expectTypeOf<ConstructorParameters<typeof Port>[0]>().toEqualTypeOf<
      Readonly<Record<'host' | 'port', string | number>>
    >();
    // @ts-expect-error -- `port` is named by the template and missing
    expect(() => new Port({ host: '127.0.0.1' })).not.toThrow();
    // @ts-expect-error -- `file` is not named by the template
    expect(() => new Port({ host: '127.0.0.1', port: 8420, file: 'x' })).not.toThrow();
    // @ts-expect-error -- the same two rules hold for errorMessage and CaesarError.of
    errorMessage('audit_closed', { file: 'x' });
  });
});

describe('templates', () => {
  const CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

  test.each(CODES)('%s has a real template, not one bare placeholder', (code) => {
    const { message } = ERROR_CATALOGUE[code];
    expect(message).not.toMatch(/^\{\w+\}$/);
    // `{detail}` was the escape hatch for words kept at the throw site; a template names its parts
    expect(message).not.toContain('{detail}');
  });
});
