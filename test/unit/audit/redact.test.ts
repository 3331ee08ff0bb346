import { createAccount, createOperator, createUser } from '@nats-io/nkeys';
import { describe, expect, test } from 'vitest';
import { clampPayload } from '../../../src/audit/clamp.js';
import { isSecretKey, redactText } from '../../../src/text/index.js';
import { ClampLimitsSchema } from '../../../src/audit/limits.js';

const limits = ClampLimitsSchema.parse({});
const SECRET = 'hunter2-very-secret-value';
const stored = (payload: unknown) => clampPayload(payload, limits).json;

const SECRET_KEYS = [
  'password',
  'PASSWORD',
  'db_password',
  'passwd',
  'secret',
  'client_secret',
  'token',
  'access_token',
  'refreshToken',
  'api_key',
  'apikey',
  'apiKey',
  'X-Api-Key',
  'authorization',
  'Authorization',
  'cookie',
  'Set-Cookie',
  'credential',
  'credentials',
  'private_key',
  'privateKey',
  'seed',
  'nkeySeed',
];

describe('secret keys', () => {
  test.each(SECRET_KEYS)('%s is a secret key', (key) => {
    expect(isSecretKey(key)).toBe(true);
  });

  test.each(['expression', 'entity_id', 'query', 'decision_id', 'policy_sha256', 'reason'])(
    '%s is not a secret key',
    (key) => {
      expect(isSecretKey(key)).toBe(false);
    },
  );

  test.each(SECRET_KEYS)('a value under %s never reaches storage, at any depth', (key) => {
    const payload = {
      [key]: SECRET,
      nested: { list: [{ deeper: [[{ [key]: SECRET }]] }], [key]: { whole: SECRET } },
      rows: [{ [key]: [SECRET, SECRET] }],
    };
    const json = stored(payload);
    expect(json).not.toContain('hunter2');
    expect(JSON.parse(json)).toMatchObject({ [key]: '[redacted]' });
  });

  test('non-string secrets are redacted too', () => {
    const json = stored({ pin: 1, password: 1234, token: { a: 1 }, seed: [1, 2] });
    expect(JSON.parse(json)).toEqual({
      pin: 1,
      password: '[redacted]',
      token: '[redacted]',
      seed: '[redacted]',
    });
  });
});

const seedOf = (kp: { getSeed(): Uint8Array }) => new TextDecoder().decode(kp.getSeed());
const NKEY_SEEDS = {
  user: seedOf(createUser()),
  account: seedOf(createAccount()),
  operator: seedOf(createOperator()),
};

describe('free-text redaction', () => {
  test.each([
    ['bearer token', 'curl -H "Authorization: Bearer abcdef0123456789xyz"', 'abcdef0123456789xyz'],
    [
      'bearer token in prose',
      'use bearer eyQ2cGFzc3dvcmQxMjM0NTY3 please',
      'eyQ2cGFzc3dvcmQxMjM0NTY3',
    ],
    ['NKEY user seed', `seed file: ${NKEY_SEEDS.user}`, NKEY_SEEDS.user],
    ['NKEY account seed', `got ${NKEY_SEEDS.account} from env`, NKEY_SEEDS.account],
    ['NKEY operator seed', `${NKEY_SEEDS.operator}`, NKEY_SEEDS.operator],
    [
      'JWT',
      'token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig_part-123 done',
      'eyJzdWIiOiIxMjM0In0',
    ],
    ['password in URL', 'https://admin:s3cr3tpw@ha.local:8123/api', 's3cr3tpw'],
    ['key=value', 'login with password=hunter2 now', 'hunter2'],
    ['query string', 'GET /search?q=x&api_key=AbC123xyz&x=1', 'AbC123xyz'],
    ['JSON inside text', '{"token": "tok_live_123456"}', 'tok_live_123456'],
    ['OpenAI key', 'key sk-proj-abcdefghijklmnop1234', 'sk-proj-abcdefghijklmnop1234'],
    ['Anthropic key', 'sk-ant-api03-abcdefghijklmnopqrstu', 'abcdefghijklmnopqrstu'],
    [
      'GitHub token',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
    ],
    ['AWS access key', 'AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
    [
      'PEM private key',
      '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----',
      'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC',
    ],
  ])('%s is redacted', (_name, text, secret) => {
    expect(text).toContain(secret);
    const out = redactText(text);
    expect(out).not.toContain(secret);
    expect(out).toContain('[redacted');
    expect(stored({ deep: [{ text }] })).not.toContain(secret);
  });

  test.each([
    'what is 17 * 23',
    'turn on the kitchen light',
    'Basic arithmetic is supported',
    'the token limit was reached',
    'https://en.wikipedia.org/wiki/Seed',
  ])('%j is left alone', (text) => {
    expect(redactText(text)).toBe(text);
  });

  test('a secret straddling the string cap is still redacted', () => {
    const small = ClampLimitsSchema.parse({ maxStringChars: 100 });
    const text = `${'a'.repeat(90)} Bearer ${'Z'.repeat(40)}`;
    const json = clampPayload({ text }, small).json;
    expect(json).not.toContain('ZZZZZZZZ');
  });
});
