import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openAuditLog } from '../../../src/audit/index.js';
import { startBrain } from '../../../src/brain/daemon/index.js';
import { discoverServices } from '../../../src/brain/registry/index.js';
import { loadConfig } from '../../../src/config/index.js';
import { SHIPPED_INTENTS_FILE } from '../../../src/config/shipped.js';
import { toolCalled } from '../../helpers/audit-fixtures.js';
import { startCalculatorProcess, stopProcess } from '../../helpers/brain.js';
import { assertBuilt, runCli } from '../../helpers/cli.js';
import { calls, reply, startFakeOpenAi } from '../../helpers/fake-llm.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { waitFor } from '../../helpers/wait.js';

// Issue 26, finding 6: text from outside (an audit row, a model's reply and the tool name it
// makes up, a worker's --host) was printed raw by `caesar audit tail`, `caesar chat` and
// `caesar legion list`: an OSC sequence retitled the terminal, CSI recoloured it, and a
// newline started a line of the attacker's own. Each test feeds such text through the real
// path and the compiled CLI, and reads what the terminal would get.

/** Retitles the terminal (OSC 0, ended by BEL), recolours it (CSI), forges a line. */
const HOSTILE = '\u001b]0;pwned\u0007\u001b[31mred\nforged: ok\u009b2J\u202eevil';
/** What a terminal would act on rather than show; only the line feed is left out. */
const RAW_CONTROL =
  // eslint-disable-next-line no-control-regex -- the test looks for control characters
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** Checks what the terminal got: no control it would act on, no line the attacker started. */
function expectTerminalSafe(output: string): void {
  expect(output).not.toMatch(RAW_CONTROL);
  expect(output.split('\n').filter((l) => l.startsWith('forged'))).toEqual([]);
}

/** Each spawn of the CLI takes about a second of CPU, several on a loaded machine. */
const SPAWNING_TEST_MS = 90_000;

let dir: string;
beforeAll(async () => {
  assertBuilt();
  dir = await mkdtemp(join(tmpdir(), 'caesar-terminal-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('caesar audit tail / query', { timeout: SPAWNING_TEST_MS }, () => {
  let db: string;
  beforeAll(async () => {
    db = join(dir, 'audit.db');
    const log = openAuditLog({ path: db, retention: { days: 0, intervalMs: 0 } });
    await log.append(toolCalled(1));
    // a row written by anything that can append (or by hand): hostile in every text column
    await log.append(
      toolCalled(2, {
        tool: HOSTILE,
        actor: HOSTILE,
        sessionId: HOSTILE,
        payload: {
          input: { note: HOSTILE },
          decision: {
            allowed: true,
            reason: HOSTILE,
            rule: 'allowed_tools[0]',
            policy_sha256: 'p1',
          },
        },
      }),
    );
    await log.append(toolCalled(3));
    await log.close();
  });

  test('tail prints one line per row, every control escaped', async () => {
    const r = await runCli(['audit', 'tail', '--db', db]);
    expect(r.code).toBe(0);
    expectTerminalSafe(r.stdout);
    const lines = r.stdout.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(
      '\\u001b]0;pwned\\u0007\\u001b[31mred\\nforged: ok\\u009b2J\\u202eevil',
    );
  });

  test('query prints one line per row, every control escaped', async () => {
    const r = await runCli(['audit', 'query', '--db', db]);
    expect(r.code).toBe(0);
    expectTerminalSafe(r.stdout);
    expect(r.stdout.split('\n')).toHaveLength(3);
  });

  test('--json stays JSON that reads back as the stored text, with no raw control', async () => {
    const r = await runCli(['audit', 'tail', '--db', db, '--json']);
    expect(r.code).toBe(0);
    expectTerminalSafe(r.stdout);
    const rows = r.stdout.split('\n').map((l) => JSON.parse(l) as { tool: string });
    expect(rows.map((row) => row.tool)).toEqual(['calculator', HOSTILE, 'calculator']);
  });
});

describe('caesar chat', { timeout: SPAWNING_TEST_MS }, () => {
  let nats: TestNats;
  beforeAll(async () => {
    nats = await startNats();
  });
  afterAll(async () => {
    await nats?.stop();
  });

  test("a model's reply and the tool name it makes up reach the terminal escaped", async () => {
    await using model = await startFakeOpenAi({ key: 'sk-test-terminal-0123456789' });
    model.script(calls([{ id: 'call_1', name: HOSTILE, arguments: '{}' }]), reply(HOSTILE));
    const dataDir = join(dir, 'chat-var');
    const policyFile = join(dir, 'policy.yaml');
    await writeFile(policyFile, 'version: 1\nallowed_tools:\n  - calculator\n');
    const config = await loadConfig({
      env: {
        CAESAR_BUS__URL: nats.url,
        CAESAR_DATA_DIR: dataDir,
        CAESAR_POLICY__FILE: policyFile,
        CAESAR_BRAIN__INTENTS_FILE: SHIPPED_INTENTS_FILE,
        CAESAR_API__PORT: '0',
        CAESAR_LOG__LEVEL: 'silent',
        CAESAR_LLM__PROVIDER: 'openai',
        CAESAR_LLM__MODEL: 'gpt-test',
        CAESAR_LLM__OPENAI__BASE_URL: `${model.url}/v1`,
        CAESAR_LLM__OPENAI__API_KEY: 'sk-test-terminal-0123456789',
      },
      cwd: dir,
    });
    const brain = await startBrain(config, { sweepIntervalMs: 500 });
    try {
      const api = ['--api-url', brain.url, '--token-file', join(dataDir, 'api-tokens.yaml')];
      for (const verbose of [[], ['--verbose']]) {
        if (verbose.length > 0) {
          model.script(calls([{ id: 'call_2', name: HOSTILE, arguments: '{}' }]), reply(HOSTILE));
        }
        const r = await runCli(['chat', 'tell me something odd', ...api, ...verbose]);
        expect(r.code).toBe(0);
        // the reply is a body: it keeps its line break, and nothing else a terminal acts on
        expect(r.stdout).not.toMatch(RAW_CONTROL);
        expect(r.stdout).toBe(
          '\\u001b]0;pwned\\u0007\\u001b[31mred\nforged: ok\\u009b2J\\u202eevil',
        );
        // the tool line on stderr holds the name the model chose: one line, escaped
        expectTerminalSafe(r.stderr);
        const toolLines = r.stderr.split('\n').filter((l) => l.includes('pwned'));
        expect(toolLines).toHaveLength(1);
        expect(toolLines[0]).toContain('\\u001b]0;pwned\\u0007\\u001b[31mred\\nforged: ok');
      }
    } finally {
      await brain.close();
    }
  });
});

describe('caesar legion list', { timeout: SPAWNING_TEST_MS }, () => {
  test("a worker's --host reaches the table escaped, on the tool's one row", async () => {
    await using nats = await startNats();
    const worker = startCalculatorProcess(nats.url, ['--host', HOSTILE]);
    try {
      const nc = await nats.connect();
      await waitFor(
        async () => (await discoverServices(nc, { windowMs: 200 })).length === 1,
        'the calculator worker to be discovered',
        60_000,
      );
      const r = await runCli(['legion', 'list', '--nats-url', nats.url, '--wait', '1000']);
      expect(r.code).toBe(0);
      expectTerminalSafe(r.stdout);
      const rows = r.stdout.split('\n').filter((l) => l.startsWith('calculator'));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toContain('\\u001b]0;pwned\\u0007\\u001b[31mred\\nforged: ok');
      const json = await runCli(['legion', 'list', '--nats-url', nats.url, '--json']);
      expect(json.code).toBe(0);
      expectTerminalSafe(json.stdout);
      const [tool] = JSON.parse(json.stdout) as { hosts: string[] }[];
      expect(tool?.hosts).toEqual([HOSTILE]);
    } finally {
      await stopProcess(worker);
    }
  });
});
