import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openAuditLog } from '../../../../src/audit/index.js';
import { readRuntimeFile, writeRuntimeFile } from '../../../../src/config/index.js';
import { toolCalled } from '../../../helpers/audit-fixtures.js';
import { CLI, assertBuilt } from '../../../helpers/cli.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';
import { TOKEN, stackDir, startBrainStub, type BrainStub, type StackDir } from './brain-stub.js';

/**
 * The built CLI as a real process (run `npm run build` first): commander wiring, exit codes,
 * stdin, and the stack found through runtime.json in `--data-dir`.
 */

let stub: BrainStub;
let stack: StackDir;
let cwd: string;

beforeAll(async () => {
  assertBuilt();
  stub = await startBrainStub();
  stack = await stackDir(stub.url);
  cwd = await mkdtemp(join(tmpdir(), 'caesar-cwd-'));
});
afterAll(async () => {
  await stack[Symbol.asyncDispose]();
  await stub[Symbol.asyncDispose]();
  await rm(cwd, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `caesar <args>` in an empty working directory, with no CAESAR_* env; `stdin` is piped. */
function caesar(args: string[], stdin = ''): Promise<Run> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('CAESAR_')),
  );
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      expect(stdout + stderr).not.toContain(TOKEN);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Each `caesar` process takes about 1 s of CPU to start (issue 13), 5 s with two busy loops beside
 * it; a test here spawns up to four in turn. The bound only catches a hang, so it is per test, not
 * per spawn: four spawns at 15 s each.
 */
const SPAWNING_TEST_MS = 60_000;

describe(
  'caesar chat / invoke / confirm / reject (processes)',
  { timeout: SPAWNING_TEST_MS },
  () => {
    test('chat answers a one-shot message with the reply and a line per tool call, exit 0', async () => {
      const r = await caesar(['chat', 'what is 17 * 23', '--data-dir', stack.dataDir]);
      expect(r).toEqual({
        code: 0,
        stdout: '17 * 23 = 391\n',
        stderr: '· calculator → ok (3 ms)\n',
      });
    });

    test('chat reads one message per line from piped stdin', async () => {
      const r = await caesar(['chat', '--data-dir', stack.dataDir], 'what is 2 * 3\nhi\n');
      expect(r).toMatchObject({ code: 0, stdout: '2 * 3 = 6\necho: hi\n' });
    });

    test('invoke exits 3 for a call waiting for approval; confirm and reject answer it', async () => {
      const dd = ['--data-dir', stack.dataDir];
      const waiting = await caesar(['invoke', 'call_service', '{"domain":"light"}', ...dd]);
      expect(waiting.code).toBe(3);
      expect(waiting.stdout).toContain(
        `approve: caesar confirm conf-1 --data-dir ${stack.dataDir}`,
      );
      expect(await caesar(['confirm', 'conf-1', ...dd])).toMatchObject({ code: 0 });
      expect(await caesar(['reject', 'conf-1', ...dd])).toMatchObject({ code: 0 });
      const gone = await caesar(['confirm', 'conf-2', ...dd]);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toBe(
        'caesar confirm: no pending confirmation conf-2 (expired, already used, or voided by a policy reload)\n',
      );
    });

    test('invoke reads its input from stdin with -, exit 0 on ok; --json prints the report', async () => {
      const r = await caesar(
        ['invoke', 'calculator', '-', '--json', '--data-dir', stack.dataDir],
        '{"expression": "17 * 23"}',
      );
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'ok', result: { value: 391 } });
    });

    test.each([
      ['bad JSON', ['invoke', 'calculator', '{nope']],
      ['a bad --timeout', ['chat', 'hi', '--timeout', 'soon']],
      ['an unknown option', ['chat', 'hi', '--bogus']],
      ['a missing argument', ['reject']],
    ])('%s is a usage error: exit 2', async (_name, args) => {
      const r = await caesar([...args, '--data-dir', stack.dataDir]);
      expect(r.code).toBe(2);
      expect(r.stderr).not.toBe('');
    });

    test('a stopped brain is one line and exit 1', async () => {
      const empty = join(cwd, 'no-stack');
      const r = await caesar(['chat', 'hi', '--data-dir', empty]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `caesar chat: no runtime.json in ${empty}; is \`caesar up\` running? (API tokens file ${join(empty, 'api-tokens.yaml')}: does not exist)\n`,
      );
    });
  },
);

describe(
  'legion list, audit and policy find the stack through runtime.json',
  { timeout: SPAWNING_TEST_MS },
  () => {
    let nats: TestNats;
    let dataDir: string;

    beforeAll(async () => {
      nats = await startNats();
      dataDir = await mkdtemp(join(tmpdir(), 'caesar-stack-'));
      const auditDb = join(dataDir, 'elsewhere-audit.db');
      const log = openAuditLog({ path: auditDb, retention: { days: 0, intervalMs: 0 } });
      for (let i = 1; i <= 3; i++) await log.append(toolCalled(i));
      await log.close();
      const policyFile = join(dataDir, 'stack-policy.yaml');
      await writeFile(policyFile, 'version: 1\nallowed_tools:\n  - tool: calculator\n');
      const info = (await readRuntimeFile(stack.dataDir))!;
      await writeRuntimeFile(dataDir, {
        ...info,
        data_dir: dataDir,
        nats_url: nats.url,
        audit_db: auditDb,
        policy_file: policyFile,
      });
    });
    afterAll(async () => {
      await nats[Symbol.asyncDispose]();
      await rm(dataDir, { recursive: true, force: true });
    });

    test('legion list connects to the NATS URL in runtime.json', async () => {
      const r = await caesar(['legion', 'list', '--json', '--wait', '100', '--data-dir', dataDir]);
      expect(r).toMatchObject({ code: 0, stdout: '[]\n' });
    });

    test('audit stats reads the audit db in runtime.json; --db still wins', async () => {
      const r = await caesar(['audit', 'stats', '--json', '--data-dir', dataDir]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ rows: 3 });
      const flag = await caesar([
        'audit',
        'stats',
        '--data-dir',
        dataDir,
        '--db',
        join(cwd, 'x.db'),
      ]);
      expect(flag.code).toBe(1);
      expect(flag.stderr).toContain(`no audit log at ${join(cwd, 'x.db')}`);
    });

    test('policy check checks the policy file in runtime.json', async () => {
      const r = await caesar(['policy', 'check', '--json', '--data-dir', dataDir]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        ok: true,
        file: join(dataDir, 'stack-policy.yaml'),
      });
    });
  },
);
