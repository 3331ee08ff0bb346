import { afterEach, describe, expect, test, vi } from 'vitest';
import { buildProgram } from '../../../src/cli/program/program.js';
import { REDACTED } from '../../../src/text/index.js';
import { tempDir } from './temp-dir.js';

/** A secret that must never reach the output. */
const SECRET = 'tok-9fQ2-never-printed';

interface Shown {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `caesar config show <args>` in-process through `buildProgram()`, with exactly `env`
 * as the CAESAR_* environment, collecting what the command prints.
 */
async function show(args: string[], env: Record<string, string> = {}): Promise<Shown> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  for (const name of Object.keys(process.env)) {
    if (name.startsWith('CAESAR_')) vi.stubEnv(name, undefined);
  }
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  const before = process.exitCode;
  try {
    await buildProgram()
      .exitOverride()
      .parseAsync(['config', 'show', ...args], { from: 'user' });
    return { code: Number(process.exitCode ?? 0), stdout: out.join('\n'), stderr: err.join('\n') };
  } finally {
    process.exitCode = before;
  }
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** The `key = value   # source` line of `key`, split. */
function line(stdout: string, key: string): { value: string; source: string } | undefined {
  const hit = stdout.split('\n').find((l) => l.startsWith(`${key} = `));
  const m = hit === undefined ? null : /^\S+ = (.*?)\s+# (.*)$/.exec(hit);
  return m ? { value: m[1]!, source: m[2]! } : undefined;
}

describe('caesar config show', () => {
  test('prints each value with its source: file:line:col, env, env file, flag, default', async () => {
    await using dir = await tempDir();
    const config = await dir.write('caesar.yaml', 'log:\n  level: warn\nworker:\n  grace: 15s\n');
    const tokenFile = await dir.write('secrets/nats_token', `${SECRET}\n`);
    const { code, stdout, stderr } = await show(
      ['--config', config, '--data-dir', `${dir.path}/state`],
      {
        CAESAR_BUS__TOKEN_FILE: tokenFile,
        CAESAR_BRAIN__CALL_TIMEOUT: '45s',
      },
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain(`config file: ${config}`);
    expect(line(stdout, 'log.level')).toEqual({ value: 'warn', source: `${config}:2:10` });
    expect(line(stdout, 'worker.grace')).toEqual({ value: '15s', source: `${config}:4:10` });
    expect(line(stdout, 'brain.call_timeout')).toEqual({
      value: '45s',
      source: 'env CAESAR_BRAIN__CALL_TIMEOUT',
    });
    expect(line(stdout, 'bus.token')).toEqual({
      value: REDACTED,
      source: `env CAESAR_BUS__TOKEN_FILE -> ${tokenFile}`,
    });
    expect(line(stdout, 'data_dir')).toEqual({ value: `${dir.path}/state`, source: 'flag' });
    expect(line(stdout, 'audit.file')).toEqual({
      value: `${dir.path}/state/audit.db`,
      source: 'default',
    });
    expect(line(stdout, 'bus.reconnect_wait')).toEqual({ value: '2s', source: 'default' });
    expect(line(stdout, 'bus.creds_file')).toEqual({ value: '(not set)', source: 'default' });
    expect(stdout).not.toContain(SECRET);
  });

  test('groups keys by section, one blank line between sections', async () => {
    await using dir = await tempDir();
    const config = await dir.write('caesar.yaml', '');
    const { stdout } = await show(['--config', config]);
    const blocks = stdout.split('\n\n').slice(1);
    const sections = blocks.map((b) => new Set(b.split('\n').map((l) => l.split(/[.= ]/)[0])));
    expect(sections.map((s) => [...s])).toEqual([
      ['data_dir'],
      ['log'],
      ['bus'],
      ['worker'],
      ['watchdog'],
      ['embedded'],
      ['policy'],
      ['audit'],
      ['api'],
      ['brain'],
      ['llm'],
      ['ha'],
      ['tools'],
    ]);
  });

  test('--json prints {path: {value, source}}, secrets masked, durations as caesar.yaml writes them', async () => {
    await using dir = await tempDir();
    const config = await dir.write('caesar.yaml', 'bus:\n  url: nats://a:4222,nats://b:4222\n');
    const keyFile = await dir.write('brave_key', SECRET);
    const { code, stdout } = await show(['--config', config, '--json'], {
      CAESAR_TOOLS__WEB_SEARCH__API_KEY_FILE: keyFile,
      CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL: 'http://searx:8080',
    });
    expect(code).toBe(0);
    const shown = JSON.parse(stdout) as Record<string, { value: unknown; source: string }>;
    expect(shown['bus.url']).toEqual({
      value: ['nats://a:4222', 'nats://b:4222'],
      source: `${config}:2:8`,
    });
    expect(shown['bus.connect_timeout']).toEqual({ value: '5s', source: 'default' });
    expect(shown['bus.token']).toEqual({ value: null, source: 'default' });
    expect(shown['tools.web_search.api_key']).toEqual({
      value: REDACTED,
      source: `env CAESAR_TOOLS__WEB_SEARCH__API_KEY_FILE -> ${keyFile}`,
    });
    expect(shown['tools.web_search.searxng_url']).toEqual({
      value: 'http://searx:8080',
      source: 'env CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL',
    });
    expect(stdout).not.toContain(SECRET);
  });

  test('a configuration that does not load exits 2 with the loader message on stderr', async () => {
    await using dir = await tempDir();
    const config = await dir.write('caesar.yaml', 'log:\n  levle: debug\n');
    const { code, stdout, stderr } = await show(['--config', config], {
      CAESAR_BUS__TOKEN_FILE: `${dir.path}/missing`,
    });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('invalid configuration (2 problems)');
    expect(stderr).toContain(
      `${config}:2:3: log.levle: unknown key 'levle' (did you mean 'level'?)`,
    );
    expect(stderr).toContain(
      `CAESAR_BUS__TOKEN_FILE: bus.token: secret file ${dir.path}/missing does not exist`,
    );
  });

  test('a secret read from a file never appears, even when the configuration is invalid', async () => {
    await using dir = await tempDir();
    const tokenFile = await dir.write('tok', SECRET);
    const config = await dir.write('caesar.yaml', `bus:\n  creds_file: ./w.creds\n`);
    const bad = await show(['--config', config], {
      CAESAR_BUS__TOKEN_FILE: tokenFile,
      CAESAR_BUS__NKEY_SEED_FILE: './seed.nk',
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('CAESAR_BUS__TOKEN_FILE: bus.token: set only one of');
    expect(`${bad.stdout}${bad.stderr}`).not.toContain(SECRET);
  });
});
