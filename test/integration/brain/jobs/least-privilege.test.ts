import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUser } from '@nats-io/nkeys';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAuditLog, type AuditLog } from '../../../../src/audit/index.js';
import { createDispatcher } from '../../../../src/brain/dispatch/index.js';
import { ToolGateway } from '../../../../src/brain/gateway/index.js';
import { JobQueue } from '../../../../src/brain/jobs/job-queue.js';
import { startRegistry, type Registry } from '../../../../src/brain/registry/index.js';
import { serveTools, type ToolWorker } from '../../../../src/legion/index.js';
import { openPolicyStore, type PolicyStore } from '../../../../src/policy/index.js';
import {
  brainPermissions,
  inboxPrefix,
  JOB_STREAM,
  jobConsumer,
  jobSubject,
  jsApi,
  workerPermissions,
} from '../../../../src/protocol/index.js';
import { GrantSigner, GrantVerifier } from '../../../../src/protocol/grant.js';
import { createSlowJob } from '../../../fixtures/job-tools.js';
import { nextServerError, startNats, type TestNats } from '../../../helpers/nats.js';
import { waitFor } from '../../../helpers/wait.js';

/**
 * Jobs under the NKEY identities and permissions `caesar legion permissions` derives (ADR
 * 0098): the brain alone submits; a worker pulls from its own tool's consumer only and speaks
 * only about its own tool's jobs; every job carries a grant the worker checks.
 */
describe('jobs under least-privilege identities', () => {
  let dir: string;
  let nats: TestNats;
  let audit: AuditLog;
  let policy: PolicyStore;
  let registry: Registry;
  let queue: JobQueue;
  let gateway: ToolGateway;
  let worker: ToolWorker;
  const ids = { brain: createUser(), slow: createUser(), other: createUser() };
  const seed = (name: keyof typeof ids) => join(dir, `${name}.nk`);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'caesar-jobs-perm-'));
    for (const [name, kp] of Object.entries(ids)) {
      writeFileSync(join(dir, `${name}.nk`), `${new TextDecoder().decode(kp.getSeed())}\n`, {
        mode: 0o600,
      });
    }
    const user = (kp: (typeof ids)['brain'], perms: object) =>
      `    { nkey: ${kp.getPublicKey()}, permissions: ${JSON.stringify(perms)} },`;
    const config = [
      'authorization: {',
      '  users: [',
      user(ids.brain, brainPermissions('brain')),
      user(ids.slow, workerPermissions(['slow_job'])),
      user(ids.other, workerPermissions(['quick_job'])),
      '  ]',
      '}',
      '',
    ].join('\n');
    nats = await startNats({ config, jetstream: true });
    const nc = await nats.connect({
      auth: { kind: 'nkey', seedFile: seed('brain') },
      inboxPrefix: inboxPrefix('brain'),
    });
    audit = openAuditLog({ path: join(dir, 'audit.db') });
    writeFileSync(join(dir, 'policy.yaml'), 'version: 1\nallowed_tools:\n  - tool: slow_job\n');
    policy = await openPolicyStore({ path: join(dir, 'policy.yaml'), reloadSignal: null });
    registry = await startRegistry({ nc });
    queue = await JobQueue.start({
      nc,
      audit,
      inboxPrefix: inboxPrefix('brain'),
      signer: new GrantSigner(ids.brain.getSeed()),
      lapseMs: 3000,
    });
    gateway = new ToolGateway({
      tools: registry,
      policy,
      audit,
      dispatcher: createDispatcher({ nc }),
      callTimeoutMs: 5000,
      confirmationTtlMs: 60_000,
      jobs: queue,
    });
    worker = await serveTools([createSlowJob()], {
      nc: await nats.connect({ auth: { kind: 'nkey', seedFile: seed('slow') } }),
      host: 'slow-host',
      grants: new GrantVerifier({ trusted: [ids.brain.getPublicKey()] }),
      jobs: { heartbeatMs: 300, pullWaitMs: 1000 },
    });
    await waitFor(() => registry.tool('slow_job'), 'the registry to learn slow_job', 10_000);
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    gateway?.close();
    await queue?.close();
    await registry?.close();
    await nats?.stop();
    policy?.close();
    await audit?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('a job runs end to end inside the derived permissions, its grant checked by the worker', async () => {
    const r = await gateway.invoke(
      'slow_job',
      { id: 'p', seconds: 1, tick_ms: 200 },
      { actor: 'ops' },
    );
    expect(r.outcome).toBe('ok');
    const done = await waitFor(
      () =>
        queue.view(r.decision_id)?.status === 'finished' ? queue.view(r.decision_id) : undefined,
      'the job to finish',
      15_000,
    );
    expect(done.worker?.host).toBe('slow-host');
  }, 30_000);

  it("another tool's worker may not pull slow_job's jobs, submit a job, or speak about slow_job's jobs", async () => {
    const nc = await nats.connect({ auth: { kind: 'nkey', seedFile: seed('other') } });
    const refused = async (subject: string) => {
      const err = nextServerError(nc);
      nc.publish(subject, '{}');
      return (await err).message;
    };
    expect(await refused(jsApi.msgNext(JOB_STREAM, jobConsumer('slow_job')))).toMatch(
      /permissions violation for publish/i,
    );
    expect(await refused(jobSubject('submit', 'quick_job'))).toMatch(
      /permissions violation for publish/i,
    );
    expect(await refused(jobSubject('event', 'slow_job', 'x'))).toMatch(
      /permissions violation for publish/i,
    );
    expect(await refused(jsApi.streamMsgDelete(JOB_STREAM))).toMatch(
      /permissions violation for publish/i,
    );
    expect(await refused(`$JS.ACK.${JOB_STREAM}.${jobConsumer('slow_job')}.1.1.1.1.0`)).toMatch(
      /permissions violation for publish/i,
    );
  }, 30_000);
});
