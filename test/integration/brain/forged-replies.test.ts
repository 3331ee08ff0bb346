import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { headers as natsHeaders, type Msg, type NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectBus, readNkeySeed } from '../../../src/bus/index.js';
import { childSpecs } from '../../../src/cli/stack/children.js';
import { mintEmbeddedAuth, type EmbeddedAuth } from '../../../src/cli/stack/embedded-auth.js';
import {
  DispatchRequestSchema,
  SRV_METADATA,
  SrvInfoSchema,
  dispatchSubject,
  serviceName,
  srvSubject,
  type DispatchRequest,
} from '../../../src/protocol/index.js';
import { grantNonce } from '../../../src/protocol/grant.js';
import { ReplyDhKey, replyMac } from '../../../src/protocol/reply-mac.js';
import { ReplySigner, replyMessage } from '../../../src/protocol/reply-signature.js';
import { callBrain, pollBrain, stopProcess, type BrainProcess } from '../../helpers/brain.js';
import { startCli, type RunningCli } from '../../helpers/cli.js';
import {
  FAKE_HA_TOKEN,
  setsState,
  startFakeHomeAssistant,
  type FakeHomeAssistant,
} from '../../helpers/fake-home-assistant.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { firstToken } from '../../helpers/tokens.js';
import { waitFor, within } from '../../helpers/wait.js';

// Issue 26, finding 2: an identity that may publish under the brain's inbox (here the
// operator identity `caesar up` mints, which is unrestricted) saw a `call_service` dispatch
// and answered it first with a forged `ok`: the API said "Front door: unlocked -> locked"
// while the lock had not moved. The stack is the one `caesar up` runs: the identities it
// mints, the server config it writes, and the brain and worker started with the environment
// and flags it gives them (childSpecs). The front door's lock is jammed (it never reports a
// new state), so the real answer is that it stayed unlocked; the forger always answers first
// (Home Assistant holds the service call until the forgery has reached the server).

const enc = new TextEncoder();
const dec = new TextDecoder();

/** The forged result: what the finding's API returned. Valid against call_service's schema. */
const FORGED_RESULT = {
  service: 'lock.lock',
  changed: true,
  verified: true,
  summary: 'Front door: unlocked -> locked.',
  entities: [
    {
      entity_id: 'lock.front_door',
      name: 'Front door',
      before: 'unlocked',
      after: 'locked',
      changed: true,
    },
  ],
};

/** An instance the operator makes up, and answers for on its own INFO subject. */
const PHANTOM = 'PHANTOMINSTANCE000000000';
/** The operator identity's key, which it signs its forgeries with (set once minted). */
let operatorSigner: ReplySigner;
/** The real instance's `caesar.reply_dh`, as anyone who may ask its INFO reads it. */
let realReplyDh = '';
/** The operator's own X25519 key, which it MACs its forgeries with (ADR 0105). */
const operatorDh = ReplyDhKey.create();

const LOCK = { domain: 'lock', service: 'lock', target: { entity_id: 'lock.front_door' } };
const PORCH = { domain: 'light', service: 'turn_on', target: { entity_id: 'light.porch' } };

/** What a forger publishes to the reply subject of one dispatch it saw. */
type Forgery = (ctx: {
  instanceId: string;
  earlier: Uint8Array | undefined;
  /** The dispatch the forger saw. */
  call: DispatchRequest;
}) => {
  data: Uint8Array;
  headers?: ReturnType<typeof natsHeaders>;
};

const forgedOk = (worker: { id: string; host: string }, extra: Record<string, unknown> = {}) => ({
  data: enc.encode(
    JSON.stringify({
      v: 1,
      success: true,
      result: FORGED_RESULT,
      worker,
      duration_ms: 12,
      ...extra,
    }),
  ),
});

const FORGERIES: [name: string, reason: string, forge: Forgery][] = [
  [
    'an unsigned ok naming the real instance',
    'unsigned',
    ({ instanceId }) => forgedOk({ id: instanceId, host: 'kitchen' }),
  ],
  [
    'an ok naming the real instance with a made-up signature',
    'bad_signature',
    ({ instanceId }) =>
      forgedOk(
        { id: instanceId, host: 'kitchen' },
        { signature: `v1.${randomBytes(64).toString('base64url')}` },
      ),
  ],
  [
    'the real, signed reply to an earlier call, replayed',
    'bad_signature',
    ({ earlier }) => ({ data: earlier! }),
  ],
  [
    'an ok naming an instance the registry does not know',
    'unknown_instance',
    () =>
      forgedOk(
        { id: 'FORGEDINSTANCE0000000000', host: 'kitchen' },
        { signature: `v1.${randomBytes(64).toString('base64url')}` },
      ),
  ],
  [
    'a no-responders status',
    'no_responders',
    () => ({
      data: new Uint8Array(0),
      headers: natsHeaders(503, 'No Responders'),
    }),
  ],
  ['a reply that is not JSON', 'malformed', () => ({ data: enc.encode('{"v":1,') })],
  [
    'an ok naming the real instance with a made-up MAC',
    'bad_signature',
    ({ instanceId }) =>
      forgedOk(
        { id: instanceId, host: 'kitchen' },
        { signature: `v2.${randomBytes(32).toString('base64url')}` },
      ),
  ],
  [
    "an ok MACed with the key the operator's own X25519 key makes with the real instance's declared one",
    'bad_signature',
    ({ instanceId, call }) => {
      const outcome = { success: true as const, result: FORGED_RESULT };
      const claims = {
        decisionId: call.decision_id,
        nonce: grantNonce(call.grant!)!,
        instanceId,
        outcome,
      };
      const key = operatorDh.macKey(realReplyDh.split('.')[0]!, 'brain')!;
      return forgedOk(
        { id: instanceId, host: 'kitchen' },
        { signature: replyMac(key, replyMessage(claims)) },
      );
    },
  ],
  [
    "an ok validly signed with the operator's own key, naming a phantom instance it confirms on that instance's own INFO subject",
    'untrusted_key',
    ({ call }) => {
      const outcome = { success: true as const, result: FORGED_RESULT };
      const signature = operatorSigner.sign({
        decisionId: call.decision_id,
        nonce: grantNonce(call.grant!)!,
        instanceId: PHANTOM,
        outcome,
      });
      return forgedOk({ id: PHANTOM, host: 'kitchen' }, { signature });
    },
  ],
];

describe('forged replies to a call, under the identities caesar up mints', () => {
  let dir: string;
  let nats: TestNats;
  let ha: FakeHomeAssistant;
  let auth: EmbeddedAuth;
  let brain: BrainProcess | undefined;
  let worker: RunningCli | undefined;
  let operator: NatsConnection;
  let instanceId = '';
  /** The reply the real worker sent to the porch light call. */
  let earlier: Uint8Array | undefined;
  /** What the forger does with the next dispatch it sees; unset: nothing. */
  let forge: Forgery | undefined;
  /** Home Assistant runs `lock.lock` once this resolves (the forgery has reached the server). */
  let forged: Promise<void> = Promise.resolve();
  let release: () => void = () => undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caesar-forged-replies-'));
    auth = await mintEmbeddedAuth(dir, ['call_service']);
    nats = await startNats({ config: await readFile(auth.serverConfig, 'utf8') });
    ha = await startFakeHomeAssistant({
      entities: [
        {
          entity_id: 'lock.front_door',
          state: 'unlocked',
          attributes: { friendly_name: 'Front door' },
          device: 'frozen',
        },
        { entity_id: 'light.porch', state: 'off', attributes: { friendly_name: 'Porch light' } },
      ],
      services: {
        'lock.lock': {
          run: async (call, fake) => {
            await forged;
            setsState('locked')!(call, fake);
          },
        },
      },
    });
    const policyFile = join(dir, 'policy.yaml');
    await writeFile(
      policyFile,
      'version: 1\nallowed_services:\n  - lock.lock\n  - light.turn_on\n',
    );
    const intentsFile = join(dir, 'intents.yaml');
    await copyFile(new URL('../../../config/intents.yaml', import.meta.url), intentsFile);
    const [brainSpec, workerSpec] = childSpecs({
      natsUrl: nats.url,
      dataDir: join(dir, 'var'),
      policyFile,
      intentsFile,
      apiPort: '0',
      logLevel: 'warn',
      tools: ['call_service'],
      auth,
    });
    // as caesar up runs them: the same flags after the CLI's entry point, the same env
    const cliArgs = (args: readonly string[]) =>
      args.slice(args.findIndex((a) => a.endsWith('main.js')) + 1);
    worker = startCli(cliArgs(workerSpec!.args), {
      ...workerSpec!.env,
      CAESAR_HA__URL: ha.url,
      CAESAR_HA__TOKEN: FAKE_HA_TOKEN,
    });
    const proc = startCli(cliArgs(brainSpec!.args), brainSpec!.env);
    const line = await proc.waitForLine(/^brain ready: /, 30_000);
    const url = /^brain ready: (\S+)/.exec(line)![1]!;
    brain = { proc, url, token: await firstToken(join(dir, 'var', 'api-tokens.yaml')) };
    await pollBrain(
      async () => {
        const tools = await callBrain(brain!, 'GET', '/v1/tools');
        return (tools.body as { name: string }[]).some((t) => t.name === 'call_service');
      },
      'the brain to discover call_service',
      30_000,
    );

    // The attacker: the operator identity, unrestricted on the bus.
    operator = await connectBus({
      servers: nats.url,
      auth: { kind: 'nkey', seedFile: auth.operatorSeedFile },
    });
    const info = await operator.request(
      srvSubject('INFO', serviceName('call_service')),
      undefined,
      {
        timeout: 5000,
      },
    );
    const real = SrvInfoSchema.parse(JSON.parse(dec.decode(info.data)));
    instanceId = real.id;
    realReplyDh = real.metadata?.[SRV_METADATA.replyDh] ?? '';
    expect(realReplyDh).not.toBe('');
    operatorSigner = new ReplySigner((await readNkeySeed(auth.operatorSeedFile)).seed);
    // the phantom: the real instance's INFO, with another id and the operator's reply key
    const phantom = {
      ...real,
      id: PHANTOM,
      metadata: { ...real.metadata, [SRV_METADATA.replyKey]: operatorSigner.publicKey },
    };
    operator.subscribe(srvSubject('INFO', serviceName('call_service'), PHANTOM), {
      callback: (_err, msg) => {
        msg.respond(enc.encode(JSON.stringify(phantom)));
      },
    });
    operator.subscribe(dispatchSubject('call_service'), {
      callback: (_err, msg: Msg) => {
        const next = forge;
        forge = undefined;
        if (next === undefined || !msg.reply) {
          release();
          return;
        }
        const call = DispatchRequestSchema.parse(JSON.parse(dec.decode(msg.data)));
        const { data, headers } = next({ instanceId, earlier, call });
        operator.publish(msg.reply, data, headers ? { headers } : {});
        // the forgery is at the server before Home Assistant lets the real call finish
        void operator.flush().then(release);
      },
    });
    await operator.flush();
  }, 90_000);

  afterAll(async () => {
    await operator?.close();
    await Promise.all([stopProcess(brain?.proc), stopProcess(worker)]);
    await ha?.close();
    await nats?.stop();
    await rm(dir, { recursive: true, force: true });
  }, 30_000);

  /** Refusals counted so far, by reason: each forgery must add one. */
  const refusedBefore: Record<string, number> = Object.fromEntries(
    FORGERIES.map(([, reason]) => [reason, 0]),
  );

  function invoke(input: unknown) {
    return callBrain(brain!, 'POST', '/v1/tools/call_service/invoke', { input });
  }

  /** Arms the forger for the next dispatch; Home Assistant waits for it. */
  function armForger(f: Forgery): void {
    forge = f;
    forged = new Promise((resolve) => (release = resolve));
  }

  test('a real call: the reply an observer could record and replay later', async () => {
    // the operator may read the brain's inbox too: it records the real, signed reply
    // (the same inbox also carries the answers to the brain's discovery PINGs: skip those)
    const sub = operator.subscribe('_INBOX.brain.>');
    const recorded = (async () => {
      for await (const m of sub) {
        if (dec.decode(m.data).includes('"io.nats.micro.v1.')) continue;
        sub.unsubscribe();
        return m.data;
      }
      return undefined;
    })();
    await operator.flush();
    const res = await invoke(PORCH);
    expect(res.body).toMatchObject({
      outcome: 'ok',
      result: { summary: 'Porch light: off -> on.' },
    });
    earlier = await within(recorded, 'the recorded reply');
    expect(dec.decode(earlier)).toContain('Porch light');
  });

  test.each(FORGERIES)(
    'the brain refuses %s and returns the real answer: the lock stayed unlocked',
    async (_name, reason, forgery) => {
      ha.setState('lock.front_door', 'unlocked');
      const callsBefore = ha.calls.length;
      armForger(forgery);
      const res = await invoke(LOCK);
      expect(res.status).toBe(200);
      expect(res.body.result?.summary).not.toBe(FORGED_RESULT.summary);
      expect(res.body).toMatchObject({
        outcome: 'ok',
        result: {
          service: 'lock.lock',
          changed: false,
          entities: [{ entity_id: 'lock.front_door', before: 'unlocked', after: 'unlocked' }],
        },
      });
      expect(res.body.result.summary).toMatch(/Front door stayed unlocked/);
      expect(ha.calls.length).toBe(callsBefore + 1);

      // counted, and one warn line for the call (a no-responders status is judged after a
      // PING, which may come back after the real answer)
      const series = new RegExp(
        `^caesar_replies_refused_total\\{tool="call_service",reason="${reason}"\\} (\\d+)$`,
        'm',
      );
      const expected = (refusedBefore[reason] = refusedBefore[reason]! + 1);
      await pollBrain(async () => {
        const metrics = await callBrain(brain!, 'GET', '/metrics');
        return Number(series.exec(String(metrics.body))?.[1] ?? 0) >= expected;
      }, `caesar_replies_refused_total{reason="${reason}"} to count the forgery`);
      const decisionId = res.body.decision_id as string;
      await waitFor(
        () => brain!.proc.stderr().includes(decisionId),
        'the warn line naming the call',
      );
      const lines = brain!.proc
        .stderr()
        .split('\n')
        .filter((l) => l.includes(decisionId) && l.includes('not bound to its call'));
      expect(lines).toHaveLength(1);
    },
    30_000,
  );
});
