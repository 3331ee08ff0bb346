import { execFileSync, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { CLI, startCli, type RunningCli } from '../../helpers/cli.js';
import { allShellBlocks, where } from '../../helpers/doc-blocks.js';
import { waitFor } from '../../helpers/wait.js';

// Issue 29, point 1: a newcomer follows README.md, then docs/legion.md, in one directory.
// The stack starts as `npm start` starts it (`caesar up`, every shipped tool, in the
// directory the reader works in); README.md's run blocks run against it, then the
// walkthrough of docs/legion.md, each block as written, in bash, with `caesar` on the PATH
// as `npm link` puts it. The walkthrough's tool joins that same stack: the grant edits its
// var/policy.yaml, the intent rule its var/intents.yaml, and `caesar invoke` and `caesar
// chat` use its token file. The block that serves the tool runs in the background, as the
// docs say ("in a terminal of its own"). The last, optional step (worker.modules) is followed
// by the restart it asks for. The only additions are the environment's: any free ports for
// the stack (so the test never meets another one), a calculator with one warm thread.

const LEGION = new URL('../../../docs/legion.md', import.meta.url);
const BLOCK_TIMEOUT_MS = 60_000;

/** The sh blocks of the walkthrough section, in order. */
async function walkthroughBlocks(): Promise<string[]> {
  const text = await readFile(LEGION, 'utf8');
  const start = text.indexOf('## A tool of your own, from scaffold to chat');
  const section = text.slice(start, text.indexOf('\n## ', start + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

const SERVE = 'caesar legion serve-tool --module ./my-tools/greeter';

describe('README.md, then docs/legion.md, in one directory against one stack', () => {
  let root: string | undefined;
  let up: RunningCli | undefined;
  let serve: RunningCli | undefined;

  afterAll(async () => {
    for (const p of [serve, up]) {
      if (p && p.child.exitCode === null) {
        p.child.kill('SIGTERM');
        await p.exited;
      }
    }
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  }, 60_000);

  test('the README stack, then scaffold, serve into it, grant, invoke, intent, chat, and with every start', async () => {
    const blocks = await walkthroughBlocks();
    expect(blocks.map((b) => b.split('\n')[0])).toEqual([
      'caesar legion new greeter --dir my-tools/greeter',
      SERVE,
      "sed -i 's/^allowed_tools:$/&\\n  - tool: greeter/' var/policy.yaml",
      `caesar invoke greeter '{"who": "Ada"}'`,
      "cat >> var/intents.yaml <<'EOF'",
      'caesar chat "greet Ada"',
      "cat > caesar.yaml <<'EOF'",
    ]);
    const readme = allShellBlocks().filter((b) => b.doc === 'README.md' && b.test?.kind === 'run');
    expect(readme.length).toBeGreaterThan(2);

    root = await mkdtemp(join(tmpdir(), 'caesar-readme-legion-'));
    const dir = join(root, 'caesar'); // the clone, where `npm start` runs
    const bin = join(root, 'bin');
    await mkdir(dir);
    await mkdir(bin);
    await writeFile(join(bin, 'caesar'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    // curl fails on an HTTP error status, so a block passes only when every request did
    const realCurl = execFileSync('sh', ['-c', 'command -v curl'], { encoding: 'utf8' }).trim();
    await writeFile(
      join(bin, 'curl'),
      `#!/bin/sh\nexec "${realCurl}" --fail-with-body --max-time 30 "$@"\n`,
    );
    await Promise.all([chmod(join(bin, 'caesar'), 0o755), chmod(join(bin, 'curl'), 0o755)]);
    const stackEnv = {
      CAESAR_EMBEDDED__NATS_PORT: '0',
      CAESAR_API__PORT: '0',
      CAESAR_TOOLS__CALCULATOR__WARM_THREADS: '1',
    };
    // the reader's shell: no CAESAR_* settings; the commands find the stack in ./var
    const readerEnv: NodeJS.ProcessEnv = { NPM_CONFIG_UPDATE_NOTIFIER: 'false' };
    for (const [k, v] of Object.entries(process.env))
      if (!k.startsWith('CAESAR_')) readerEnv[k] = v;
    readerEnv.PATH = `${bin}:${process.env.PATH ?? ''}`;

    const startUp = async () => {
      const started = startCli(['up'], stackEnv, { cwd: dir });
      await started.waitForLine(/^ready: /, 120_000);
      const runtime = JSON.parse(await readFile(join(dir, 'var/runtime.json'), 'utf8')) as {
        api_url: string;
      };
      return { started, port: Number(new URL(runtime.api_url).port) };
    };
    let { started, port } = await startUp();
    up = started;

    /** One block in bash, as a reader types it; README's blocks keep what they set (TOKEN=…). */
    const sh = (body: string): Promise<Ran> => {
      const state = join(root!, '.reader-state');
      const keep = [...body.matchAll(/^(?:export\s+)?([A-Z_][A-Z0-9_]*)=/gm)].map((m) => m[1]!);
      const save = keep.map((v) => `declare -p ${v} >> '${state}'`).join('\n');
      const script =
        `set -eo pipefail\n[ -f '${state}' ] && . '${state}'\n` +
        `${body.replaceAll('127.0.0.1:8420', `127.0.0.1:${port}`)}\n${save}\n`;
      return new Promise((resolve) => {
        const child = spawn('bash', ['-c', script], { cwd: dir, env: readerEnv, detached: true });
        // `caesar chat` alone waits for typing: the reader types /exit
        child.stdin.on('error', () => undefined);
        child.stdin.end('/exit\n');
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), BLOCK_TIMEOUT_MS);
        child.once('close', (code) => {
          clearTimeout(timer);
          resolve({ code, stdout, stderr });
        });
      });
    };
    /** A call's block, run until the brain's reload of the file just saved lets it answer. */
    const answered = async (block: string) => {
      let last: Ran | undefined;
      try {
        return await waitFor(
          async () => {
            if (serve && serve.child.exitCode !== null) {
              throw new Error(`serve-tool exited ${serve.child.exitCode}: ${serve.stderr()}`);
            }
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

    // README.md: the token, what it can do, the chats, curl: all against this stack
    for (const b of readme) {
      const r = await sh(b.body);
      expect({ block: where(b), code: r.code, stderr: r.stderr }).toMatchObject({
        code: 0,
      });
    }
    const token = (await sh(readme[0]!.body)).stdout.trim();
    expect(token).toMatch(/^\S{16,}$/);

    // docs/legion.md, literally, against the same stack
    const outputs: Ran[] = [];
    for (const block of blocks.slice(0, -1)) {
      if (block.trim() === SERVE) {
        serve = startCli(SERVE.split(' ').slice(1), {}, { cwd: dir });
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
    // 4: the call went through the README's stack, granted by its var/policy.yaml
    expect(outputs[2]!.stdout).toMatch(/^greeter: ok \(decision /);
    expect(outputs[2]!.stdout).toContain(`rule: allowed_tools[0] (${dir}/var/policy.yaml:`);
    // 6: the rule added to its var/intents.yaml answers the chat, offline, with its token
    expect(outputs[4]!.stdout.trim()).toBe('Hello, Ada!');
    // one stack all along: no second runtime.json, the README's token still the one in use
    expect((await sh(readme[0]!.body)).stdout.trim()).toBe(token);

    // 7: worker.modules, then the restart the step asks for: caesar up serves the tool itself
    const last = await sh(blocks.at(-1)!);
    expect(last.code).toBe(0);
    serve!.child.kill('SIGINT');
    expect((await serve!.exited).code).toBe(0);
    serve = undefined;
    up.child.kill('SIGINT');
    await up.exited;
    ({ started, port } = await startUp());
    up = started;
    expect(up.lines.join('\n')).toMatch(/^greeter +serving/m);
    expect(up.lines).toContain('preflight     greeter: ready');
    const again = await answered(blocks[3]!);
    expect(again.stdout).toContain(`rule: allowed_tools[0] (${dir}/var/policy.yaml:`);
  }, 420_000);
});
