import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUser } from '@nats-io/nkeys';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { serveTools, type ToolWorker } from '../../../src/legion/index.js';
import {
  DispatchReplySchema,
  brainPermissions,
  dispatchSubject,
  inboxPrefix,
  workerPermissions,
} from '../../../src/protocol/index.js';
import { runCli, startCli, type RunningCli } from '../../helpers/cli.js';
import { rawDispatch } from '../../helpers/dispatch.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { waitFor } from '../../helpers/wait.js';
import { probeTool } from './tools.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

function identity() {
  const kp = createUser();
  return { seed: dec.decode(kp.getSeed()), pub: kp.getPublicKey() };
}

describe('least-privilege NKEY identities', () => {
  const worker = identity();
  const brain = identity();
  const intruder = identity();
  const calculator = identity();
  let dir: string;
  let calcWorker: RunningCli | undefined;
  let nats: TestNats;
  let served: ToolWorker;
  const workerErrors: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caesar-perm-'));
    for (const [name, id] of Object.entries({ worker, brain, intruder, calculator })) {
      await writeFile(join(dir, `${name}.nk`), `${id.seed}\n`, { mode: 0o600 });
    }
    const users = [
      { nkey: worker.pub, permissions: workerPermissions(['probe']) },
      { nkey: calculator.pub, permissions: workerPermissions(['calculator']) },
      { nkey: brain.pub, permissions: brainPermissions('brain') },
      // The intruder may use its own inbox and nothing else.
      {
        nkey: intruder.pub,
        permissions: { publish: { allow: ['_INBOX.>'] }, subscribe: { allow: ['_INBOX.>'] } },
      },
    ];
    nats = await startNats({ config: `authorization: ${JSON.stringify({ users })}\n` });
    const workerNc = await nats.connect({
      auth: { kind: 'nkey', seedFile: join(dir, 'worker.nk') },
    });
    void (async () => {
      for await (const s of workerNc.status())
        if (s.type === 'error') workerErrors.push(String(s.error));
    })();
    served = await serveTools([probeTool], { nc: workerNc });
  });
  afterAll(async () => {
    calcWorker?.child.kill('SIGTERM');
    await calcWorker?.exited;
    await served?.stop();
    await nats?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('a worker with only its own subjects serves calls from the brain identity', async () => {
    const nc = await nats.connect({
      auth: { kind: 'nkey', seedFile: join(dir, 'brain.nk') },
      inboxPrefix: inboxPrefix('brain'),
    });
    const msg = await nc.request(
      dispatchSubject('probe'),
      enc.encode(
        JSON.stringify({
          v: 1,
          tool: 'probe',
          input: { text: 'ok' },
          decision_id: 'd',
          deadline: Date.now() + 2000,
        }),
      ),
      { timeout: 2000 },
    );
    expect(DispatchReplySchema.parse(JSON.parse(dec.decode(msg.data)))).toMatchObject({
      success: true,
      result: { echo: 'ok' },
    });
    // The worker's own subscriptions (dispatch, preflight, $SRV) all fit its permissions.
    expect(workerErrors).toEqual([]);
  });

  test('the calculator CLI worker under its own NKEY seed file and least privilege serves the brain', async () => {
    calcWorker = startCli(
      [
        'legion',
        'serve-tool',
        'calculator',
        '--nats-url',
        nats.url,
        '--nkey-seed-file',
        join(dir, 'calculator.nk'),
        '--log-level',
        'warn',
        // a warm thread: the call's deadline below times the call, not a cold start (ADR 0048)
      ],
      // permissions, not grants, are under test: the raw dispatch below carries none
      { CAESAR_TOOLS__CALCULATOR__WARM_THREADS: '1', CAESAR_WORKER__REQUIRE_GRANT: 'false' },
    );
    const nc = await nats.connect({
      auth: { kind: 'nkey', seedFile: join(dir, 'brain.nk') },
      inboxPrefix: inboxPrefix('brain'),
    });
    // Poll until the worker has started its threads and subscribed (no-responders until then).
    const reply = await waitFor(
      async () => {
        try {
          return (await rawDispatch(nc, 'calculator', { expression: '17 * 23' })).reply;
        } catch {
          return undefined;
        }
      },
      'the calculator worker to serve',
      60_000,
      200,
    );
    expect(reply).toMatchObject({ success: true, result: { value: 391 } });
    // Every subscription the worker made fits its permissions: it logged no violation.
    expect(calcWorker.stderr()).not.toMatch(/permissions violation/i);
  }, 90_000);

  test('another identity subscribing to the calculator dispatch subject is refused by the server', async () => {
    const nc = await nats.connect({ auth: { kind: 'nkey', seedFile: join(dir, 'intruder.nk') } });
    const refused = new Promise<Error>((resolve) => {
      nc.subscribe(dispatchSubject('calculator'), {
        queue: 'caesar-tool',
        callback: (err) => {
          if (err) resolve(err);
        },
      });
    });
    const err = await refused;
    expect(err.message).toMatch(
      /permissions violation for subscription to "caesar\.dispatch\.tool\.calculator"/i,
    );
  });

  test('serving a tool its identity may not receive fails with the refused subjects, before any hello', async () => {
    const nc = await nats.connect({ auth: { kind: 'nkey', seedFile: join(dir, 'worker.nk') } });
    const hellos: string[] = [];
    const watcher = await nats.connect({
      auth: { kind: 'nkey', seedFile: join(dir, 'brain.nk') },
      inboxPrefix: inboxPrefix('brain'),
    });
    watcher.subscribe('caesar.registry.hello', {
      callback: (_e, m) => void hellos.push(m.string()),
    });
    await watcher.flush();
    try {
      // `worker` may serve `probe` only; the calculator's subjects are refused
      const err = await serveTools(
        [probeTool, { ...probeTool, spec: { ...probeTool.spec, name: 'calculator' } }],
        {
          nc,
        },
      ).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'bus_permission_denied', name: 'BusPermissionError' });
      const message = (err as Error).message;
      expect(message).toContain('caesar.dispatch.tool.calculator');
      expect(message).toContain('caesar.preflight.tool.calculator');
      expect(message).toContain('`caesar legion permissions calculator`');
      expect(message).not.toMatch(/probe:/); // its own tool's subjects were granted
      await watcher.flush();
      expect(hellos).toEqual([]);
      // the watcher does see hellos: the same identity serving its own tool says hello
      const own = await serveTools([probeTool], { nc });
      await waitFor(() => hellos.length > 0, 'the probe worker to say hello');
      expect(JSON.parse(hellos[0]!)).toMatchObject({ tool: 'probe' });
      await own.stop();
    } finally {
      await nc.close();
      await watcher.close();
    }
  });

  test("caesar legion serve-tool under another tool's identity exits 1 naming subject, identity and fix, never ready", async () => {
    const run = await runCli([
      'legion',
      'serve-tool',
      'calculator',
      '--nats-url',
      nats.url,
      '--nkey-seed-file',
      join(dir, 'worker.nk'),
      '--log-level',
      'info',
      '--trusted-brain',
      worker.pub,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('caesar.dispatch.tool.calculator');
    expect(run.stderr).toContain(`the NKEY ${worker.pub} (seed file ${join(dir, 'worker.nk')})`);
    expect(run.stderr).toContain('`caesar legion permissions calculator`');
    expect(run.stderr).not.toMatch(/"msg":"ready"/);
  }, 60_000);

  test('a connection with a wrong seed is rejected', async () => {
    const stranger = identity();
    await writeFile(join(dir, 'stranger.nk'), stranger.seed);
    await expect(
      nats.connect({ auth: { kind: 'nkey', seedFile: join(dir, 'stranger.nk') } }),
    ).rejects.toThrow(/authorization/i);
  });
});
