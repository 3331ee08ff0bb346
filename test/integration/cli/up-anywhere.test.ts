import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { CLI, runCli, startCli, type RunningCli } from '../../helpers/cli.js';

// Issue 15: `caesar up` run outside the repository failed on ./policy/policy.yaml (ENOENT)
// and had no --policy flag. It now runs from any directory: the shipped policy and intents
// (found from the installed package, not the working directory) are copied into the data
// dir on first start and used from there after (ADR 0056). Every run below has a fresh temp
// dir outside the repository for its working directory.
// docs/operations.md ("From any directory") shows this run and its first lines.

const PACKAGE = join(import.meta.dirname, '../../..');
const SHIPPED_POLICY = join(PACKAGE, 'policy', 'policy.yaml');
const SHIPPED_INTENTS = join(PACKAGE, 'config', 'intents.yaml');

let cwd: string;
let up: RunningCli | undefined;

beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'caesar-anywhere-'));
});
afterEach(async () => {
  if (up && up.child.exitCode === null) up.child.kill('SIGKILL');
  up = undefined;
  await rm(cwd, { recursive: true, force: true });
});

/** `caesar up` on any free ports, in `cwd` with no flag naming a file, until `ready:`. */
async function startUp(): Promise<RunningCli> {
  const run = startCli(['up', '--nats-port', '0', '--api-port', '0'], {}, { cwd });
  up = run;
  await run.waitForLine(/^ready: /, 90_000);
  return run;
}

async function stopUp(run: RunningCli): Promise<void> {
  run.child.kill('SIGINT');
  expect((await run.exited).code).toBe(0);
}

/** `caesar <args>` in `cwd` with `input` piped to its stdin. */
function runPiped(args: string[], input: string) {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(input);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
}

const line = (name: string, text: string) => `${name.padEnd(13)} ${text}`;

describe('caesar up from any directory', () => {
  test('copies the shipped policy and intents on first run, answers chat, and keeps an edited copy on the next run', async () => {
    const policy = join(cwd, 'var', 'policy.yaml');
    const intents = join(cwd, 'var', 'intents.yaml');
    const first = await startUp();
    expect(first.lines).toContain(
      line('policy', `${policy} (copied from the shipped ${SHIPPED_POLICY}; edit this copy)`),
    );
    expect(first.lines).toContain(
      line('intents', `${intents} (copied from the shipped ${SHIPPED_INTENTS}; edit this copy)`),
    );
    expect(await readFile(policy, 'utf8')).toBe(await readFile(SHIPPED_POLICY, 'utf8'));
    expect(await readFile(intents, 'utf8')).toBe(await readFile(SHIPPED_INTENTS, 'utf8'));
    // the operator's to edit, whatever the mode of the installed package's files
    for (const f of [policy, intents]) expect((await stat(f)).mode & 0o777).toBe(0o600);

    const chat = await runCli(['chat', 'what is 17 * 23'], {}, { cwd });
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain('391');

    // piped REPL commands run as commands; only the question goes to the brain
    const piped = await runPiped(['chat'], '/tools\nwhat is 2+2\n');
    expect(piped.code).toBe(0);
    expect(piped.stdout).toMatch(/^calculator\s+allow\s+1 instance\(s\)$/m);
    expect(piped.stdout).toContain('2+2 = 4');
    expect(piped.stdout).not.toMatch(/no local rule matched/);

    // docs/operations.md's command, as written: a named session starts on first use
    const named = ['chat', '--verbose', '--session', 'kitchen', 'turn on the kitchen light'];
    for (let i = 0; i < 2; i++) {
      const kitchen = await runCli(named, {}, { cwd });
      expect(kitchen.code).toBe(0);
      expect(kitchen.stderr).toMatch(/^\[chat\] session kitchen, planner intent/m);
      expect(kitchen.stdout).toMatch(/CAESAR_HA__URL/);
    }
    await stopUp(first);

    // the operator's edit of the copy survives the next start and is the policy enforced
    await writeFile(policy, 'version: 1\nallowed_tools: []\n');
    const second = await startUp();
    expect(second.lines).toContain(line('policy', policy));
    expect(second.lines).toContain(line('intents', intents));
    expect(await readFile(policy, 'utf8')).toBe('version: 1\nallowed_tools: []\n');
    const denied = await runCli(['chat', 'what is 17 * 23'], {}, { cwd });
    expect(denied.stdout).toMatch(/not allowed to use calculator/);
    expect(denied.stdout).not.toContain('391');
    await stopUp(second);
  }, 300_000);

  test('--policy or --intents naming a missing file exits 1 naming the file and the next step', async () => {
    const [policy, intents] = await Promise.all([
      runCli(['up', '--nats-port', '0', '--api-port', '0', '--policy', 'nope.yaml'], {}, { cwd }),
      runCli(['brain', '--nats-url', 'nats://127.0.0.1:1', '--intents', 'rules.yaml'], {}, { cwd }),
    ]);
    expect(policy.code).toBe(1);
    expect(policy.stderr).toContain(
      `policy.file (--policy, CAESAR_POLICY__FILE) names ${join(cwd, 'nope.yaml')}, which does not exist`,
    );
    expect(policy.stderr).toContain(`cp ${SHIPPED_POLICY} ${join(cwd, 'nope.yaml')}`);
    expect(intents.code).toBe(1);
    expect(intents.stderr).toContain(`names ${join(cwd, 'rules.yaml')}, which does not exist`);
    expect(intents.stderr).toContain(`cp ${SHIPPED_INTENTS} ${join(cwd, 'rules.yaml')}`);
  }, 60_000);
});
