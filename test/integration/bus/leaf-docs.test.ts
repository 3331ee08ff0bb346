import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import { afterAll, expect, test } from 'vitest';
import { createDispatcher } from '../../../src/brain/dispatch/index.js';
import { Registry } from '../../../src/brain/registry/index.js';
import { connectBus, readNkeySeed } from '../../../src/bus/index.js';
import { GrantSigner } from '../../../src/protocol/grant.js';
import { startNatsServer, type NatsServer } from '../../../src/bus/launcher.js';
import {
  REGISTRY_HELLO_SUBJECT,
  dispatchSubject,
  serviceName,
  srvSubject,
} from '../../../src/protocol/index.js';
import { runCli, startCli, type RunningCli } from '../../helpers/cli.js';
import { closedPort } from '../../helpers/ports.js';
import { waitFor } from '../../helpers/wait.js';

// Issue 14, scope 3: docs/operations.md's leaf-node procedure, run as the docs write it: a hub
// with the brain, a leaf server at a remote site with a calculator worker. Each host is a
// directory; hub.lan and the ports become loopback ports that are free. One addition the docs
// do not have: the leaf server also gets an unrestricted identity, standing for a Pi taken
// over, to show what its leaf connection cannot do.

const DOC = new URL('../../../docs/operations.md', import.meta.url);

/** The `caesar …` and `nats-server …` lines of the section's sh blocks, continuations joined. */
async function docCommands(): Promise<string[]> {
  const text = await readFile(DOC, 'utf8');
  const start = text.indexOf('## A remote site: leaf nodes');
  const section = text.slice(start, text.indexOf('\n## ', start + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((m) => m[1]!.replace(/\\\n\s*/g, '').split('\n'))
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l.startsWith('caesar ') || l.startsWith('nats-server '));
}

/** `nats-server -t -c file` in `cwd`: nats-server's own check of a config. */
function natsServerCheck(args: string[], cwd: string): { status: number | null; output: string } {
  const PATH = [process.env.PATH ?? '', '/usr/sbin', '/usr/local/sbin'].join(delimiter);
  const r = spawnSync('nats-server', args, { cwd, env: { ...process.env, PATH } });
  return { status: r.status, output: `${r.stdout.toString()}${r.stderr.toString()}` };
}

let root: string | undefined;
const servers: NatsServer[] = [];
const clients: NatsConnection[] = [];
const running: RunningCli[] = [];
let registry: Registry | undefined;

afterAll(async () => {
  await registry?.close();
  await Promise.allSettled(clients.map((c) => c.close()));
  for (const p of running) p.child.kill('SIGTERM');
  await Promise.all(running.map((p) => p.exited));
  await Promise.all(servers.map((s) => s.stop()));
  if (root) await rm(root, { recursive: true, force: true });
}, 30_000);

test('a hub with the brain and a leaf server with a calculator, from the docs: the call goes through, the leaf carries no more than its tools', async () => {
  const commands = await docCommands();
  expect(commands.map((c) => c.split(' ').slice(0, 3).join(' '))).toEqual([
    'caesar nats config',
    'nats-server -t -c',
    'nats-server -c hub.conf',
    'caesar legion identity',
    'caesar nats config',
    'nats-server -t -c',
    'nats-server -c leaf.conf',
    'caesar legion serve-tool',
  ]);
  root = await mkdtemp(join(tmpdir(), 'caesar-leaf-docs-'));
  const hub = join(root, 'hub');
  const pi = join(root, 'pi');
  await Promise.all([mkdir(hub), mkdir(pi)]);
  // from the previous section: the brain's and the operator's identities, on the hub side;
  // and the test's own stand-in for a Pi taken over
  const minted = await Promise.all([
    runCli(['legion', 'identity', 'new', 'brain', '--brain', '--out', join(hub, 'brain.nk')]),
    runCli(['legion', 'identity', 'new', 'op', '--operator', '--out', join(hub, 'operator.nk')]),
    runCli(['legion', 'identity', 'new', 'rogue', '--operator', '--out', join(pi, 'rogue.nk')]),
  ]);
  for (const r of minted) expect(r.code, r.stderr).toBe(0);

  const [hubPort, leafPort, piPort] = [await closedPort(), await closedPort(), await closedPort()];
  const here = (line: string) =>
    line
      .replaceAll('0.0.0.0:4222', `127.0.0.1:${hubPort}`)
      .replaceAll('0.0.0.0:7422', `127.0.0.1:${leafPort}`)
      .replaceAll('hub.lan:7422', `127.0.0.1:${leafPort}`)
      .replaceAll('127.0.0.1:4222', `127.0.0.1:${piPort}`);
  for (const line of commands) {
    const args = here(line).split(' ');
    const cwd = line.includes('calculator-pi') || line.includes('leaf.conf') ? pi : hub;
    if (args[0] === 'nats-server') {
      if (args[1] === '-t') {
        expect(natsServerCheck(args.slice(1), cwd), line).toMatchObject({ status: 0 });
        continue;
      }
      const port = cwd === hub ? hubPort : piPort;
      servers.push(await startNatsServer({ port, configFile: join(cwd, args[2]!) }));
      continue;
    }
    if (args[2] === 'serve-tool') {
      running.push(
        startCli(args.slice(1), { CAESAR_TOOLS__CALCULATOR__WARM_THREADS: '1' }, { cwd: pi }),
      );
      continue;
    }
    // the Pi's server config, with the stand-in for a Pi taken over
    const extra = line.includes('--leaf-secret') ? ['--operator', 'rogue.nk'] : [];
    const r = await runCli([...args.slice(1), ...extra], {}, { cwd });
    expect({ line, code: r.code, stderr: r.stderr }).toMatchObject({ code: 0, stderr: '' });
    // "copy it to the Pi, with the brain's public key"
    if (line.includes('--leaf calculator=pi.leaf')) {
      await copyFile(join(hub, 'pi.leaf'), join(pi, 'pi.leaf'));
      await copyFile(join(hub, 'brain.pub'), join(pi, 'brain.pub'));
    }
  }

  // the brain, on the hub, with its own identity: the Pi's calculator is discovered and called
  const hubUrl = `nats://127.0.0.1:${hubPort}`;
  const connect = async (servers: string, seedFile: string) => {
    const nc = await connectBus({ servers, auth: { kind: 'nkey', seedFile } });
    clients.push(nc);
    return nc;
  };
  const brainNc = await connect(hubUrl, join(hub, 'brain.nk'));
  registry = new Registry({ nc: brainNc, sweepIntervalMs: 300, sweepWindowMs: 150 });
  await registry.start();
  await waitFor(() => registry!.tool('calculator'), 'the brain to discover the Pi', 30_000);
  // it signs its calls (ADR 0052): the Pi's worker trusts brain.pub
  const signer = new GrantSigner((await readNkeySeed(join(hub, 'brain.nk'))).seed);
  const dispatcher = createDispatcher({ nc: brainNc, signer });
  const reply = await dispatcher.dispatch(
    'calculator',
    { expression: '17 * 23' },
    { decisionId: 'd-leaf', deadline: Date.now() + 10_000, policySha256: '0'.repeat(64) },
  );
  expect(reply, JSON.stringify(reply)).toMatchObject({ success: true, result: { value: 391 } });

  // a Pi taken over: even an unrestricted identity on its own server...
  const rogue = await connect(`nats://127.0.0.1:${piPort}`, join(pi, 'rogue.nk'));
  const hubOperator = await connect(hubUrl, join(hub, 'operator.nk'));
  // ...sends no dispatch to the hub: a hello sent after it arrives, the dispatch never does
  const heard: string[] = [];
  const hello = new Promise<void>((resolve) => {
    for (const subject of [dispatchSubject('*'), REGISTRY_HELLO_SUBJECT]) {
      hubOperator.subscribe(subject, {
        callback: (_err, msg) => {
          heard.push(msg.subject);
          if (msg.subject === REGISTRY_HELLO_SUBJECT) resolve();
        },
      });
    }
  });
  await hubOperator.flush();
  await waitFor(async () => {
    rogue.publish(dispatchSubject('web_search'), '{}');
    rogue.publish(REGISTRY_HELLO_SUBJECT, '{}');
    await rogue.flush();
    return heard.length > 0;
  }, 'the hello to reach the hub');
  await hello;
  expect(heard.filter((s) => s !== REGISTRY_HELLO_SUBJECT)).toEqual([]);

  // ...and cannot answer discovery for another tool: its subscription to web_search's
  // discovery never reaches the hub, though one to the calculator's made after it does.
  // (Dispatch subjects are allowed for every tool on 2.9, see leafPermissions.)
  const allowed = srvSubject('PING', serviceName('calculator'), 'rogue');
  const refused = srvSubject('INFO', serviceName('web_search'), 'rogue');
  rogue.subscribe(refused, { callback: (_err, msg) => void msg.respond('{}') });
  rogue.subscribe(allowed, { callback: (_err, msg) => void msg.respond('{}') });
  await rogue.flush();
  await waitFor(
    () =>
      hubOperator.request(allowed, '{}', { timeout: 1000 }).then(
        () => true,
        () => false,
      ),
    'the allowed subscription to reach the hub',
  );
  await expect(hubOperator.request(refused, '{}', { timeout: 2000 })).rejects.toThrow(
    /no responders/i,
  );
}, 90_000);
