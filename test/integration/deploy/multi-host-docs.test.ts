import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startNatsServer, type NatsServer } from '../../../src/bus/launcher.js';
import { runCli, startCli, type RunningCli } from '../../helpers/cli.js';
import { closedPort } from '../../helpers/http-server.js';
import { expectCalculatorWorkerContained } from '../../helpers/nats.js';
import { waitFor } from '../../helpers/wait.js';

// Issue 14: docs/operations.md's multi-host procedure, run command by command as the docs
// write it. Each host is a directory of its own; the only changes are where the docs name
// places a test cannot have: nats.lan becomes loopback on a free port, /etc/caesar/ the
// host's directory.

const DOC = new URL('../../../docs/operations.md', import.meta.url);

/** The `caesar …` and `nats-server …` lines of the section's sh blocks, continuations joined. */
async function docCommands(): Promise<string[]> {
  const text = await readFile(DOC, 'utf8');
  const start = text.indexOf('## Workers on other hosts');
  const section = text.slice(start, text.indexOf('\n## ', start + 1));
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks
    .flatMap((b) => b.replace(/\\\n\s*/g, '').split('\n'))
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l.startsWith('caesar ') || l.startsWith('nats-server '));
}

/** Splits a command line as a shell would (the docs' lines quote with double quotes only). */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

describe("docs/operations.md's multi-host procedure, as written", () => {
  let root: string;
  let server: NatsServer | undefined;
  const running: RunningCli[] = [];

  afterAll(async () => {
    for (const p of running) p.child.kill('SIGTERM');
    await Promise.all(running.map((p) => p.exited));
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  }, 30_000);

  test('identities, server config, worker and brain from the docs: chat works, the worker is contained', async () => {
    const commands = await docCommands();
    expect(commands.map((c) => words(c).slice(0, 3).join(' '))).toEqual([
      'caesar legion identity',
      'caesar legion identity',
      'caesar legion identity',
      'caesar nats config',
      'nats-server -t -c',
      'nats-server -c nats-server.conf',
      'caesar legion serve-tool',
      'caesar brain --nats-url',
      'caesar chat what is 17 * 23',
    ]);
    root = await mkdtemp(join(tmpdir(), 'caesar-multi-host-'));
    const admin = join(root, 'admin'); // where the identities are minted
    const hosts = { worker: join(root, 'worker'), brain: join(root, 'brain') };
    for (const dir of [admin, ...Object.values(hosts)]) await mkdir(dir);
    const port = await closedPort();
    const here = (line: string, etc: string) =>
      line
        .replaceAll('nats://nats.lan:4222', `nats://127.0.0.1:${port}`)
        .replaceAll('0.0.0.0:4222', `127.0.0.1:${port}`)
        .replaceAll('/etc/caesar/', `${etc}/`);

    for (const line of commands) {
      const argv = words(line);
      if (argv[0] === 'nats-server') {
        if (argv[1] === '-t') continue; // the nats config test runs nats-server's own check
        server = await startNatsServer({ port, configFile: join(admin, 'nats-server.conf') });
        continue;
      }
      const [, ...args] = words(here(line, admin));
      if (argv[1] === 'legion' && argv[2] === 'serve-tool') {
        // first in `running`: the checks below read its log
        running.push(
          startCli(args, { CAESAR_TOOLS__CALCULATOR__WARM_THREADS: '1' }, { cwd: hosts.worker }),
        );
      } else if (argv[1] === 'brain') {
        await writeFile(join(admin, 'policy.yaml'), 'version: 1\nallowed_tools:\n  - calculator\n');
        const brain = startCli([...args, '--api-port', '0'], {}, { cwd: hosts.brain });
        running.push(brain);
        await brain.waitForLine(/^brain ready: /, 30_000);
      } else if (argv[1] === 'chat') {
        // the brain discovers the worker by its own sweeps; ask until the calculator answers
        const reply = await waitFor(
          async () => {
            const r = await runCli(args, {}, { cwd: hosts.brain });
            return r.code === 0 && r.stdout.includes('17 * 23 = 391') ? r.stdout : undefined;
          },
          'the chat to answer through the worker',
          30_000,
          500,
        );
        expect(reply).toContain('17 * 23 = 391');
      } else {
        const r = await runCli(args, {}, { cwd: admin });
        expect({ line, code: r.code, stderr: r.stderr }).toMatchObject({ code: 0, stderr: '' });
      }
    }

    // the chat's call ran under a grant the brain signed, checked against brain.pub
    const worker = running[0];
    expect(worker?.stderr()).toContain('dispatch grants required');
    expect(worker?.stderr()).not.toContain('grant rejected');

    // the worker's identity can neither receive another tool's calls nor send a dispatch
    await expectCalculatorWorkerContained(
      `nats://127.0.0.1:${port}`,
      join(admin, 'calculator-nuc.nk'),
    );
  }, 120_000);
});
