import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { CLI, startCli, type RunningCli } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';

// Issue 15, "a tool in five minutes": docs/legion.md's walkthrough, run as the docs write
// it. Each ```sh block runs in bash, in one empty directory, with `caesar` on the PATH; the
// block that is `caesar up` alone runs in the background, as the docs say ("in a terminal of
// its own"). The only additions are the environment's: any free ports (so the test never
// meets another stack's), and a calculator with one warm thread. The path ends in a call of
// the new tool through `caesar invoke`, then through an intent rule with `caesar chat`.

const DOC = new URL('../../../docs/legion.md', import.meta.url);

/** The sh blocks of the walkthrough section, in order. */
async function docBlocks(): Promise<string[]> {
  const text = await readFile(DOC, 'utf8');
  const start = text.indexOf('## A tool of your own, from scaffold to chat');
  const section = text.slice(start, text.indexOf('\n## ', start + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

describe("docs/legion.md's walkthrough, as written", () => {
  let root: string | undefined;
  let up: RunningCli | undefined;

  afterAll(async () => {
    up?.child.kill('SIGTERM');
    await up?.exited;
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  }, 30_000);

  test('scaffold, check, serve with caesar up, grant, invoke, add an intent, chat', async () => {
    const blocks = await docBlocks();
    expect(blocks.map((b) => b.split('\n')[0])).toEqual([
      'caesar legion new greeter',
      "cat > caesar.yaml <<'EOF'",
      'caesar up',
      "cat > policy.yaml <<'EOF'",
      `caesar invoke greeter '{"who": "Ada"}'`,
      "cat > intents.yaml <<'EOF'",
      'caesar chat "greet Ada"',
    ]);
    root = await mkdtemp(join(tmpdir(), 'caesar-legion-walk-'));
    const dir = join(root, 'home');
    const bin = join(root, 'bin');
    await mkdir(dir);
    await mkdir(bin);
    await writeFile(join(bin, 'caesar'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    await chmod(join(bin, 'caesar'), 0o755);
    const env = {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      CAESAR_EMBEDDED__NATS_PORT: '0',
      CAESAR_API__PORT: '0',
      CAESAR_TOOLS__CALCULATOR__WARM_THREADS: '1',
      NPM_CONFIG_UPDATE_NOTIFIER: 'false',
    };
    const sh = (block: string) =>
      new Promise<Ran>((resolve) => {
        execFile(
          'bash',
          ['-e', '-c', block],
          { cwd: dir, env: { ...process.env, ...env } },
          (err, stdout, stderr) => {
            const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
            resolve({ code, stdout, stderr });
          },
        );
      });
    /** A call's block, run until the brain's reload of the file just saved lets it answer. */
    const answered = async (block: string) => {
      let last: Ran | undefined;
      try {
        return await waitFor(
          async () => {
            last = await sh(block);
            return last.code === 0 && last.stdout.includes('Hello, Ada!') ? last : undefined;
          },
          `\`${block.trim()}\` to answer Hello, Ada!`,
          30_000,
          250,
        );
      } catch (err) {
        throw new Error(`${(err as Error).message}; last answer: ${JSON.stringify(last)}`, {
          cause: err,
        });
      }
    };

    const outputs: Ran[] = [];
    for (const block of blocks) {
      if (block.trim() === 'caesar up') {
        up = startCli(['up'], env, { cwd: dir });
        await up.waitForLine(/^ready: /, 90_000);
        continue;
      }
      const call = /^caesar (invoke|chat) /.test(block);
      const r = call ? await answered(block) : await sh(block);
      expect({ block, code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
      outputs.push(r);
    }

    // 1: the scaffold's own test passed, and the check loaded the tool
    expect(outputs[0]!.stdout).toMatch(/# pass 2/);
    expect(outputs[0]!.stdout).toContain('{"tools":["greeter"]}');
    // 3: caesar up served it beside the shipped tools, and its preflight answered
    expect(up!.lines.join('\n')).toMatch(/^greeter +serving/m);
    expect(up!.lines).toContain('preflight     greeter: ready');
    // 5: the call went through the brain, granted by the rule the walkthrough added
    expect(outputs[3]!.stdout).toMatch(/^greeter: ok \(decision /);
    expect(outputs[3]!.stdout).toContain('rule: allowed_tools[1]');
    // 7: the intent rule added while the stack ran answers the chat, offline
    expect(outputs[5]!.stdout.trim()).toBe('Hello, Ada!');
  }, 240_000);
});
