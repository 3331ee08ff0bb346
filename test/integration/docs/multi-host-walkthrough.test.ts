import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { CLI } from '../../helpers/cli.js';
import { closedPort } from '../../helpers/ports.js';
import { expectCalculatorWorkerContained } from '../../helpers/nats.js';
import { waitFor } from '../../helpers/wait.js';

// Issue 14, then issue 29 (points 5 and 6): docs/operations.md's multi-host walkthrough, run
// as the docs write it, on one machine playing the three hosts, as a tester did. Each ```sh
// block of the section runs in bash in its host's directory, with `caesar` on the PATH; the
// blocks a reader runs in a terminal of their own (nats-server, the worker, the brain) run in
// the background. The only changes are where the docs name places a test cannot have:
// nats.lan:4222 becomes a free loopback port, each host's /etc/caesar a directory of its own,
// and `scp -p … host:/etc/caesar/` a `cp -p` into it. Before issue 29 the walkthrough used a
// policy.yaml it never made, and `caesar legion list` on the brain host was refused with a
// bare "Authorization Violation".

const DOC = new URL('../../../docs/operations.md', import.meta.url);

/** The sh blocks of the section, in order. */
async function docBlocks(): Promise<string[]> {
  const text = await readFile(DOC, 'utf8');
  const start = text.indexOf('## Workers on other hosts');
  const section = text.slice(start, text.indexOf('\n## ', start + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

type Host = 'nats' | 'worker' | 'brain';

/** Each block's first line, the host it runs on, and whether it keeps running. */
const PLAN: [first: string, host: Host, serves: boolean][] = [
  ['caesar legion identity new calculator-nuc --tools calculator', 'nats', false],
  ['caesar nats config --brain brain.nk --worker calculator=calculator-nuc.nk \\', 'nats', false],
  ['nats-server -c nats-server.conf', 'nats', true],
  ['scp -p calculator-nuc.nk brain.pub nuc.lan:/etc/caesar/', 'nats', false],
  ['caesar legion serve-tool calculator --nats-url nats://nats.lan:4222 \\', 'worker', true],
  ["cat > /etc/caesar/policy.yaml <<'EOF'", 'brain', false],
  [
    'caesar brain --nats-url nats://nats.lan:4222 --nkey-seed-file /etc/caesar/brain.nk --policy /etc/caesar/policy.yaml',
    'brain',
    true,
  ],
  ['caesar chat "what is 17 * 23"           # 17 * 23 = 391', 'brain', false],
];

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

interface Serving {
  child: ChildProcess;
  out: () => string;
}

/** How long one block that exits may run before it counts as hung. */
const BLOCK_MS = 60_000;

describe("docs/operations.md's multi-host walkthrough, as written", () => {
  let root: string | undefined;
  const serving: Serving[] = [];

  afterAll(async () => {
    for (const s of serving.reverse()) {
      if (s.child.exitCode !== null || s.child.signalCode !== null) continue;
      const gone = new Promise((resolve) => s.child.once('exit', resolve));
      process.kill(-s.child.pid!, 'SIGTERM');
      await gone;
    }
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  }, 30_000);

  test('identities, server, copies, worker, policy, brain: chat and legion list work with no flags on the brain host', async () => {
    const blocks = await docBlocks();
    const first = (b: string) => b.split('\n')[0]!.replace(/\s+#.*$/, '');
    expect(blocks.map(first)).toEqual(PLAN.map(([line]) => first(line)));

    root = await mkdtemp(join(tmpdir(), 'caesar-multi-host-'));
    const dirs: Record<Host, string> = {
      nats: join(root, 'nats'),
      worker: join(root, 'worker'),
      brain: join(root, 'brain'),
    };
    const etc = (h: Host) => join(dirs[h], 'etc', 'caesar');
    const bin = join(root, 'bin');
    for (const h of ['nats', 'worker', 'brain'] as const) await mkdir(etc(h), { recursive: true });
    await mkdir(bin);
    await writeFile(join(bin, 'caesar'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    await chmod(join(bin, 'caesar'), 0o755);
    const port = await closedPort();
    // a reader's shell: no CAESAR_* settings of the test runner's; any free API port
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CAESAR_')) env[k] = v;
    Object.assign(env, {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      CAESAR_API__PORT: '0',
      CAESAR_TOOLS__CALCULATOR__WARM_THREADS: '1',
    });

    const here = (block: string, host: Host) =>
      block
        .replaceAll('nats://nats.lan:4222', `nats://127.0.0.1:${port}`)
        .replaceAll('0.0.0.0:4222', `127.0.0.1:${port}`)
        .replaceAll(/(?<=^|\s)\/etc\/caesar\//gm, `${etc(host)}/`)
        .replaceAll(/^scp -p /gm, 'cp -p ')
        .replaceAll('nuc.lan:/etc/caesar/', `${etc('worker')}/`)
        .replaceAll('brain.lan:/etc/caesar/', `${etc('brain')}/`);
    // a block that hangs fails with its own output, not as the whole test's timeout: its
    // process group is killed after BLOCK_MS (exit code 124, as timeout(1) reports it)
    const sh = (block: string, host: Host) =>
      new Promise<Ran>((resolve) => {
        let timedOut = false;
        const child = execFile(
          // setsid: bash and all it starts in a group of their own, killed as one
          'setsid',
          ['bash', '-e', '-o', 'pipefail', '-c', here(block, host)],
          { cwd: dirs[host], env },
          (err, stdout, stderr) => {
            clearTimeout(timer);
            const code = timedOut
              ? 124
              : err === null
                ? 0
                : typeof err.code === 'number'
                  ? err.code
                  : 1;
            resolve({
              code,
              stdout,
              stderr: timedOut ? `${stderr}\n(killed after ${BLOCK_MS} ms)` : stderr,
            });
          },
        );
        const timer = setTimeout(() => {
          timedOut = true;
          process.kill(-child.pid!, 'SIGKILL');
        }, BLOCK_MS);
      });
    const serve = (block: string, host: Host): Serving => {
      const child = spawn('bash', ['-e', '-c', here(block, host)], {
        cwd: dirs[host],
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-50_000)));
      child.stderr.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-50_000)));
      const s = { child, out: () => out };
      serving.push(s);
      return s;
    };

    const outputs: Ran[] = [];
    for (const [i, block] of blocks.entries()) {
      const [, host, serves] = PLAN[i]!;
      if (serves) {
        const s = serve(block, host);
        const ready = block.startsWith('nats-server')
          ? () => accepts(port)
          : block.startsWith('caesar brain')
            ? () => /^brain ready: /m.test(s.out())
            : () => /dispatch grants required/.test(s.out());
        await waitFor(
          async () => ((await ready()) ? true : undefined),
          `${block.split('\n')[0]} to serve`,
          30_000,
          100,
        ).catch((err: unknown) => {
          throw new Error(`${(err as Error).message}; its output:\n${s.out()}`, { cause: err });
        });
        continue;
      }
      // the brain discovers the worker by its own sweeps: the chat block runs until it answers
      const run = block.startsWith('caesar chat')
        ? await waitFor(
            async () => {
              const r = await sh(block, host);
              return r.code === 0 && r.stdout.includes('17 * 23 = 391') ? r : undefined;
            },
            'the chat to answer through the worker',
            30_000,
            500,
          )
        : await sh(block, host);
      expect(run.code, `${block}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(0);
      outputs.push(run);
    }

    // the policy the walkthrough wrote is the one the brain enforces
    expect(outputs[3]!.stdout + outputs[3]!.stderr).toMatch(/ok/i);
    // `caesar legion list` on the brain host, with no flags: as the operator, it sees the worker
    const listed = outputs[4]!.stdout;
    expect(listed).toMatch(/^calculator +\S+ +1 /m);

    // the chat's call ran under a grant the brain signed, checked against brain.pub
    const worker = serving[1]!;
    expect(worker.out()).toContain('dispatch grants required');
    expect(worker.out()).not.toContain('grant rejected');

    // without the operator's seed beside brain.nk, the refusal names the place and the flag
    const seed = join(etc('brain'), 'operator.nk');
    await rename(seed, `${seed}.away`);
    const refused = await sh('caesar legion list', 'brain');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `NATS at nats://127.0.0.1:${port} refused this client (Authorization Violation)`,
    );
    expect(refused.stderr).toContain(`no file ${seed}`);
    expect(refused.stderr).toContain('--nkey-seed-file');
    expect(refused.stderr).toContain('CAESAR_BUS__NKEY_SEED_FILE');
    // and the flag it names works
    const flagged = await sh(`caesar legion list --nkey-seed-file ${seed}.away`, 'brain');
    expect(flagged).toMatchObject({ code: 0 });
    expect(flagged.stdout).toMatch(/^calculator /m);

    // the worker's identity can neither receive another tool's calls nor send a dispatch
    await expectCalculatorWorkerContained(
      `nats://127.0.0.1:${port}`,
      join(etc('worker'), 'calculator-nuc.nk'),
    );
  }, 180_000);
});

/** Does something accept TCP connections on the loopback port? */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
