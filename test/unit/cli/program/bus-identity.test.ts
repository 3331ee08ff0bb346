import { describe, expect, test } from 'vitest';
import { BusAuthError } from '../../../../src/bus/index.js';
import type { RunningStack } from '../../../../src/config/index.js';
import {
  explainClientRefusal,
  type ClientIdentityContext,
} from '../../../../src/cli/program/bus-identity.js';
import { CLIENT_IDENTITY_HELP } from '../../../../src/cli/program/flags.js';

// Issue 29, point 5: `caesar legion list` on a brain-only host said only "Authorization
// Violation". The refusal now says which identity was sent, or where none was found, and the
// flag or env var to use (ADR 0072).

const URL = 'nats://127.0.0.1:4222';
const refused = () => new BusAuthError(URL, 'Authorization Violation');

const stack = (over: Partial<RunningStack> = {}): RunningStack => ({
  file: '/srv/var/runtime.json',
  info: {
    v: 1,
    pid: 1,
    started_at: '2026-01-01T00:00:00.000Z',
    data_dir: '/srv/var',
    nats_url: URL,
    api_url: 'http://127.0.0.1:8420',
    token_file: '/srv/var/api-tokens.yaml',
    token_name: 'operator',
    audit_db: '/srv/var/audit.db',
    policy_file: '/etc/caesar/policy.yaml',
    tools: [],
    operator_seed_file: '/etc/caesar/operator.nk',
  },
  operatorSeed: { offered: true, looked: ['/etc/caesar/operator.nk'] },
  ...over,
});

const ctx = (over: Partial<ClientIdentityContext> = {}): ClientIdentityContext => ({
  flags: {},
  auth: { kind: 'none' },
  stack: stack(),
  env: {},
  ...over,
});

async function message(c: ClientIdentityContext): Promise<string> {
  const err = await explainClientRefusal(refused(), c);
  expect(err).toMatchObject({ code: 'bus_auth_refused' });
  return (err as Error).message;
}

describe('a client the NATS server refused', () => {
  test("no identity on a brain host: the flag, the env var, and the brain's operator.nk looked for", async () => {
    const m = await message(ctx());
    expect(m).toBe(
      `NATS at ${URL} refused this client (Authorization Violation): it sent no identity; ` +
        'connect as the operator with --nkey-seed-file <its seed> (found none: none given by ' +
        '--nkey-seed-file, CAESAR_BUS__* or caesar.yaml; no file /etc/caesar/operator.nk) ' +
        'or set CAESAR_BUS__NKEY_SEED_FILE',
    );
  });

  test('no runtime.json: the reason it was not found is one of the places', async () => {
    const m = await message(
      ctx({ stack: { file: '/srv/var/runtime.json', missing: 'no runtime.json in /srv/var' } }),
    );
    expect(m).toContain(
      '(found none: none given by --nkey-seed-file, CAESAR_BUS__* or caesar.yaml; no runtime.json in /srv/var)',
    );
  });

  test('a URL from --nats-url: runtime.json is named as not used, and why', async () => {
    const m = await message(
      ctx({
        flags: { natsUrl: URL },
        stack: stack({ operatorSeed: { offered: false, looked: [] } }),
      }),
    );
    expect(m).toContain(
      '/srv/var/runtime.json not used: its operator seed goes with its own NATS URL only, and the URL came from --nats-url',
    );
  });

  test('a brain with no NKEY: its runtime.json names no operator seed', async () => {
    const m = await message(ctx({ stack: stack({ operatorSeed: { offered: true, looked: [] } }) }));
    expect(m).toContain('/srv/var/runtime.json names no operator seed');
  });

  test('a seed the server has no user for: which file, from where, and how to add its user', async () => {
    const seedFile = '/home/me/other.nk';
    const m = await message(
      ctx({
        auth: { kind: 'nkey', seedFile },
        flags: {},
        env: { CAESAR_BUS__NKEY_SEED_FILE: seedFile },
      }),
    );
    expect(m).toContain(`it sent the NKEY in ${seedFile}, from CAESAR_BUS__NKEY_SEED_FILE`);
    expect(m).toContain('connect as the operator with --nkey-seed-file <its seed>');
    expect(m).toContain(`caesar nats config --operator ${seedFile}`);
  });

  test("the seed runtime.json offered is named by runtime.json's path", async () => {
    const seedFile = '/etc/caesar/operator.nk';
    const seeded = stack({ operatorSeed: { offered: true, file: seedFile, looked: [seedFile] } });
    const m = await message(ctx({ auth: { kind: 'nkey', seedFile }, stack: seeded }));
    expect(m).toContain(`from /srv/var/runtime.json`);
  });

  test('a path with control characters is escaped in the one-line message', async () => {
    const evil = '/tmp/x\u001b[2J.nk';
    const m = await message(
      ctx({ stack: stack({ operatorSeed: { offered: true, looked: [evil] } }) }),
    );
    expect(m).not.toContain('\u001b');
  });

  test('any other error passes through', async () => {
    const other = new Error('connection refused');
    expect(await explainClientRefusal(other, ctx())).toBe(other);
  });
});

describe('legion list --help', () => {
  test('gives the lookup order, flag first and the brain-host operator.nk last', () => {
    const order = [
      '--nkey-seed-file',
      'CAESAR_BUS__NKEY_SEED_FILE',
      'nkeys/operator.nk',
      'operator.nk beside',
    ];
    const at = order.map((s) => CLIENT_IDENTITY_HELP.indexOf(s));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });
});
