import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { clampPayload } from '../../../src/audit/clamp.js';
import { ClampLimitsSchema } from '../../../src/audit/limits.js';
import { loadConfigWithSources, redactSettings } from '../../../src/config/index.js';
import { createLogger } from '../../../src/log/index.js';
import { isSecretKey, REDACTED, redactSecretKeys } from '../../../src/text/index.js';
import { SECRET_KEY_SCAN_DEPTH } from '../../../src/text/secret-key.js';
import { tempDir } from '../config/temp-dir.js';

/** A value no free-text rule touches, so only the key rule can hide it. */
const VALUE = 'plain-value-42';

/** One table for every place that hides secrets: the same key gives the same answer. */
const KEYS: readonly (readonly [string, boolean])[] = [
  ['password', true],
  ['db_password', true],
  ['passwd', true],
  ['passphrase', true],
  ['client_secret', true],
  ['token', true],
  ['access_token', true],
  ['refreshToken', true],
  ['api_key', true],
  ['brave_api_key', true],
  ['tavily_apiKey', true],
  ['X-Api-Key', true],
  ['authorization', true],
  ['Authorization', true],
  ['cookie', true],
  ['Set-Cookie', true],
  ['credentials', true],
  ['private_key', true],
  ['privateKey', true],
  ['seed', true],
  ['nkeySeed', true],
  ['token_ttl', true],
  ['secrets', true],
  // where a secret is kept, not the secret
  ['nkey_seed_file', false],
  ['creds_file', false],
  ['token_file', false],
  ['tokens_file', false],
  ['password_path', false],
  ['nkeySeedFile', false],
  ['secrets_dir', false],
  // limits and counts
  ['max_tokens', false],
  ['maxTokens', false],
  ['min_password_length', false],
  ['token_count', false],
  // nothing secret
  ['expression', false],
  ['entity_id', false],
  ['query', false],
  ['url', false],
  ['username', false],
];

function logLine(fields: Record<string, unknown>): Record<string, unknown> {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  createLogger({ destination }).info(fields, 'a line');
  return JSON.parse(lines[0] ?? 'null') as Record<string, unknown>;
}

const auditRow = (payload: unknown): Record<string, unknown> =>
  JSON.parse(clampPayload(payload, ClampLimitsSchema.parse({})).json) as Record<string, unknown>;

async function configShown(key: string): Promise<unknown> {
  await using dir = await tempDir();
  await dir.write('caesar.yaml', `tools:\n  demo:\n    ${JSON.stringify(key)}: ${VALUE}\n`);
  const { settings } = await loadConfigWithSources({ env: {}, cwd: dir.path });
  return redactSettings(settings).get(`tools.demo.${key}`)?.value;
}

describe('the one secret-key rule', () => {
  test.each(KEYS)(
    '%s (secret: %s) reads the same in a log line, an audit row and config show',
    async (key, secret) => {
      const expected = secret ? REDACTED : VALUE;
      expect(isSecretKey(key)).toBe(secret);
      const line = logLine({ [key]: VALUE, call: { input: [{ [key]: VALUE }] } });
      expect([
        line[key],
        (line.call as { input: Record<string, unknown>[] }).input[0]?.[key],
      ]).toEqual([expected, expected]);
      const row = auditRow({ [key]: VALUE, nested: { [key]: VALUE } });
      expect([row[key], (row.nested as Record<string, unknown>)[key]]).toEqual([
        expected,
        expected,
      ]);
      expect(await configShown(key)).toBe(expected);
    },
  );
});

describe('log redaction', () => {
  test('reaches child bindings and the fields of a logged error', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const log = createLogger({ destination }).child({ auth: { token: VALUE } });
    log.warn({ err: Object.assign(new Error('boom'), { apiKey: VALUE }) }, 'failed');
    expect(lines.join('')).not.toContain(VALUE);
    const line = JSON.parse(lines[0] ?? '{}') as { auth: unknown; err: Record<string, unknown> };
    expect(line.auth).toEqual({ token: REDACTED });
    expect(line.err).toMatchObject({ message: 'boom', apiKey: REDACTED });
  });

  test('keeps the request header paths', () => {
    const line = logLine({ req: { headers: { authorization: `Bearer ${VALUE}` } } });
    expect(line.req).toEqual({ headers: { authorization: REDACTED } });
  });

  test('a subtree deeper than the scan depth prints as a marker, never unread', () => {
    let deep: Record<string, unknown> = { token: VALUE };
    for (let i = 0; i < SECRET_KEY_SCAN_DEPTH + 2; i++) deep = { next: deep };
    const text = JSON.stringify(logLine({ deep }));
    expect(text).not.toContain(VALUE);
    expect(text).toContain(`nested deeper than ${SECRET_KEY_SCAN_DEPTH} levels`);
  });
});

describe('redactSecretKeys', () => {
  test('returns a value with no secret key as it is, and copies only what changes', () => {
    const clean = { tool: 'calculator', input: { expression: '1+1' }, list: [1, { a: 2 }] };
    expect(redactSecretKeys(clean)).toBe(clean);
    const mixed = { tool: 'x', input: { token: VALUE }, other: { a: 1 } };
    const out = redactSecretKeys(mixed) as typeof mixed;
    expect(out).toEqual({ tool: 'x', input: { token: REDACTED }, other: { a: 1 } });
    expect(out.other).toBe(mixed.other);
    expect(mixed.input.token).toBe(VALUE);
  });

  test('leaves class instances to their serializers and survives cycles', () => {
    const when = new Date(0);
    const cyclic: Record<string, unknown> = { password: VALUE };
    cyclic.self = cyclic;
    expect(redactSecretKeys({ when })).toEqual({ when });
    expect(() => JSON.stringify(redactSecretKeys(cyclic, 3))).not.toThrow();
  });
});
