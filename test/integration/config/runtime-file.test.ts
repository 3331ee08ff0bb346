import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  RuntimeFileError,
  readRuntimeFile,
  removeRuntimeFile,
  writeRuntimeFile,
  type RuntimeInfoInput,
} from '../../../src/config/index.js';
import { runtimeFilePath } from '../../../src/config/runtime-file.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-runtime-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function info(extra: Partial<RuntimeInfoInput> = {}): RuntimeInfoInput {
  return {
    pid: process.pid,
    started_at: '2026-01-01T00:00:00.000Z',
    data_dir: '/srv/caesar/var',
    nats_url: 'nats://127.0.0.1:4222',
    api_url: 'http://127.0.0.1:8420',
    token_file: '/srv/caesar/var/api-tokens.yaml',
    token_name: 'operator',
    audit_db: '/srv/caesar/var/audit.db',
    policy_file: '/srv/caesar/policy/policy.yaml',
    tools: ['calculator', 'web_search'],
    ...extra,
  };
}

/** The pid of a process that has already exited. */
function deadPid(): number {
  const { pid } = spawnSync(process.execPath, ['-e', '']);
  return pid;
}

describe('runtime.json', () => {
  test('what is written is read back, stamped with version 1', async () => {
    const path = await writeRuntimeFile(dir, info());
    expect(path).toBe(runtimeFilePath(dir));
    expect(await readRuntimeFile(dir)).toEqual({ v: 1, ...info() });
  });

  test('is written with mode 0600 and leaves no temp file behind', async () => {
    await writeRuntimeFile(dir, info());
    await writeRuntimeFile(dir, info({ api_url: 'http://127.0.0.1:9000' }));
    expect((await stat(runtimeFilePath(dir))).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['runtime.json']);
    expect((await readRuntimeFile(dir))?.api_url).toBe('http://127.0.0.1:9000');
  });

  test('creates a missing data dir', async () => {
    const nested = join(dir, 'a', 'b');
    await writeRuntimeFile(nested, info());
    expect(await readRuntimeFile(nested)).toBeDefined();
  });

  test('refuses to write an info that breaks the schema', async () => {
    await expect(writeRuntimeFile(dir, info({ api_url: 'nats://x:1' }))).rejects.toThrow(/api_url/);
    expect(await readdir(dir)).toEqual([]);
  });

  test('a missing file reads as undefined', async () => {
    expect(await readRuntimeFile(dir)).toBeUndefined();
  });

  test('a file whose pid is gone is stale: undefined, and the reason names the pid', async () => {
    const pid = deadPid();
    await writeRuntimeFile(dir, info({ pid }));
    const reasons: string[] = [];
    expect(await readRuntimeFile(dir, { onStale: (r) => reasons.push(r) })).toBeUndefined();
    expect(reasons).toEqual([`stale runtime.json from pid ${pid}; is \`caesar up\` running?`]);
  });

  test.each([
    ['not JSON', '{"v": 1, pid', /runtime\.json: not valid JSON/],
    ['a missing field', JSON.stringify({ v: 1, pid: 1 }), /not a valid runtime file \(.*api_url/],
    ['a wrong type', JSON.stringify({ ...info(), v: 1, tools: 'calculator' }), /tools: /],
    ['a newer version', JSON.stringify({ ...info(), v: 2 }), /version 2 is not supported/],
    ['JSON null', 'null', /not a valid runtime file/],
    [
      'a prototype key (the one JSON ladder, issue 30)',
      '{"v":1,"__proto__":{"pid":1}}',
      /runtime\.json: JSON with a `__proto__` key at __proto__/,
    ],
  ])('%s is an error naming the file', async (_name, text, message) => {
    await writeFile(runtimeFilePath(dir), text);
    const err = await readRuntimeFile(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RuntimeFileError);
    expect((err as RuntimeFileError).file).toBe(runtimeFilePath(dir));
    expect((err as Error).message).toContain(runtimeFilePath(dir));
    expect((err as Error).message).toMatch(message);
  });

  test('a file too large to be a runtime file is refused unread', async () => {
    await writeFile(runtimeFilePath(dir), ' '.repeat(70_000));
    await expect(readRuntimeFile(dir)).rejects.toThrow(/too large/);
  });

  test('unknown fields from a later caesar are ignored', async () => {
    await writeFile(runtimeFilePath(dir), JSON.stringify({ v: 1, ...info(), brain_pid: 7 }));
    expect(await readRuntimeFile(dir)).toEqual({ v: 1, ...info() });
  });

  test('remove deletes the file and is quiet when it is already gone', async () => {
    await writeRuntimeFile(dir, info());
    await removeRuntimeFile(dir);
    await removeRuntimeFile(dir);
    expect(await readRuntimeFile(dir)).toBeUndefined();
  });
});
