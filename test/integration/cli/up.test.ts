import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { connectBus } from '../../../src/bus/index.js';
import { dispatchSubject, inboxPrefix } from '../../../src/protocol/index.js';
import { defaultToolNames, shippedToolNames } from '../../../workers/index.js';
import { alive, runCli, startCli, type RunningCli } from '../../helpers/cli.js';
import { nextServerError, refusedSubscription } from '../../helpers/nats.js';
import { waitFor } from '../../helpers/wait.js';

let dir: string;
let up: RunningCli | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-up-'));
});
afterEach(async () => {
  if (up && up.child.exitCode === null) up.child.kill('SIGKILL');
  up = undefined;
  await rm(dir, { recursive: true, force: true });
});

/**
 * The calculator worker's identity can neither read other dispatches nor send one (so a
 * compromised calculator cannot call another tool past the brain's policy), and the brain's
 * identity cannot serve a tool.
 */
async function expectContained(url: string, dataDir: string): Promise<void> {
  const seed = (part: string) => join(dataDir, 'nkeys', `${part}.nk`);
  const worker = await connectBus({
    servers: url,
    auth: { kind: 'nkey', seedFile: seed('tool-calculator') },
  });
  const brain = await connectBus({
    servers: url,
    auth: { kind: 'nkey', seedFile: seed('brain') },
    inboxPrefix: inboxPrefix('brain'),
  });
  try {
    const sniff = await refusedSubscription(worker, 'caesar.dispatch.tool.>');
    expect(sniff.message).toMatch(/permissions violation for subscription to "caesar\.dispatch/i);
    const published = nextServerError(worker);
    worker.publish(dispatchSubject('calculator'), '{}');
    expect((await published).message).toMatch(
      /permissions violation for publish to "caesar\.dispatch\.tool\.calculator"/i,
    );
    const serve = await refusedSubscription(brain, dispatchSubject('calculator'), 'caesar-tool');
    expect(serve.message).toMatch(/permissions violation for subscription/i);
  } finally {
    await Promise.all([worker.close(), brain.close()]);
  }
}

/** An operator's raw, valid-looking dispatch without a grant: refused, `grant_rejected`. */
async function expectGrantRequired(url: string, dataDir: string): Promise<void> {
  const operator = await connectBus({
    servers: url,
    auth: { kind: 'nkey', seedFile: join(dataDir, 'nkeys', 'operator.nk') },
  });
  try {
    const envelope = {
      v: 1,
      tool: 'calculator',
      input: { expression: '6 * 7' },
      decision_id: 'not-decided-by-the-brain',
      deadline: Date.now() + 30_000,
    };
    const msg = await operator.request(dispatchSubject('calculator'), JSON.stringify(envelope), {
      timeout: 30_000,
    });
    expect(JSON.parse(new TextDecoder().decode(msg.data))).toMatchObject({
      success: false,
      error: {
        code: 'grant_rejected',
        message: 'refused without a valid grant from a trusted brain: the call carries no grant',
      },
    });
  } finally {
    await operator.close();
  }
}

function pidsFrom(lines: string[]): { nats: number; workers: number[] } {
  const text = lines.join('\n');
  const nats = Number(/nats-server .*\(pid (\d+)/.exec(text)?.[1]);
  const workers = [...text.matchAll(/serving\s+\(pid (\d+)/g)].map((m) => Number(m[1]));
  const brain = Number(/^brain\s+http\S+\s+\(pid (\d+)/m.exec(text)?.[1]);
  // the brain is one more supervised child: it must not outlive `caesar up` either
  return { nats, workers: [...workers, brain] };
}

describe('caesar up', () => {
  test('starts nats and every shipped tool, legion list sees them, Ctrl-C leaves nothing behind', async () => {
    up = startCli(['up', '--nats-port', '0', '--api-port', '0', '--data-dir', dir], {
      CAESAR_LOG__LEVEL: 'warn',
    });
    await up.waitForLine(/^ready: /, 60_000);
    const output = up.lines.join('\n');
    expect(output).toMatch(/preflight\s+calculator: ready/);
    // with no backend configured every network tool still starts and names the key to set
    expect(output).toMatch(
      /preflight\s+web_search: not configured: .*CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL/,
    );
    expect(output).toMatch(
      /preflight\s+calendar_read: not configured: .*CAESAR_TOOLS__CALENDAR__CALDAV_URL/,
    );
    // Home Assistant: one worker, two actions, each with its preflight line (ADR 0093)
    expect(output).toMatch(
      /preflight\s+home_assistant\.call_service: not configured: .*CAESAR_HA__URL/,
    );
    expect(output).toMatch(
      /preflight\s+home_assistant\.entities: not configured: .*CAESAR_HA__URL/,
    );
    expect(output).toMatch(
      new RegExp(
        // no llm section: the line says the local rules answer alone (issue 29)
        `^ready: .* with ${defaultToolNames().length} tool\\(s\\): ${defaultToolNames().join(', ')}; no model: local rules only\\.`,
        'm',
      ),
    );
    const runtime = JSON.parse(await readFile(join(dir, 'runtime.json'), 'utf8')) as {
      nats_url: string;
      nats_seed_file: string;
      brain_key: string;
      api_url: string;
    };
    // the ready line points at the dashboard, which the brain serves at /
    expect(output).toContain(
      `Dashboard: open ${runtime.api_url}/ and paste the token from ${join(dir, 'api-tokens.yaml')}.`,
    );
    const page = await fetch(`${runtime.api_url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/dashboard/app.js');
    // JetStream on, its file store in the data dir, the brain's job streams made (ADR 0098)
    for (const stream of ['caesar-jobs', 'caesar-job-events']) {
      const store = join(dir, 'jetstream', 'jetstream', '$G', 'streams', stream);
      expect((await stat(store)).isDirectory(), store).toBe(true);
    }
    const { nats, workers } = pidsFrom(up.lines);
    expect(workers.length).toBeGreaterThan(1); // the calculator and the brain
    for (const pid of [nats, ...workers]) expect(Number.isInteger(pid)).toBe(true);

    // the embedded server knows only this run's identities: a client without one is refused
    const anonymous = await runCli(['legion', 'list', '--nats-url', runtime.nats_url]);
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.stderr).toMatch(/authoriz/i);
    expect(runtime.nats_seed_file).toBe(join(dir, 'nkeys', 'operator.nk'));
    const parts = ['operator', 'brain', ...shippedToolNames().map((t) => `tool-${t}`)];
    for (const part of parts) {
      expect((await stat(join(dir, 'nkeys', `${part}.nk`))).mode & 0o077).toBe(0);
    }
    const serverConf = await readFile(join(dir, 'nats-server.conf'), 'utf8');
    expect(serverConf.match(/"nkey": "U[A-Z2-7]{55}"/g)).toHaveLength(parts.length);
    for (const part of parts) {
      const seed = (await readFile(join(dir, 'nkeys', `${part}.nk`), 'utf8')).trim();
      expect(seed).toMatch(/^SU[A-Z2-7]{56}$/);
      expect(serverConf).not.toContain(seed); // public keys only, never a seed
    }

    // inside the stack each part holds only its own subjects (ADR 0038)
    await expectContained(runtime.nats_url, dir);
    // and a worker runs only what the brain signed: the unrestricted operator identity may
    // publish a dispatch, and the calculator refuses it (ADR 0052)
    expect(runtime.brain_key).toMatch(/^U[A-Z2-7]{55}$/);
    await expectGrantRequired(runtime.nats_url, dir);

    // found through runtime.json, operator identity included
    const list = await runCli(['legion', 'list', '--json', '--data-dir', dir]);
    expect(list.code).toBe(0);
    const tools = JSON.parse(list.stdout) as {
      tool: string;
      instances: { id: string; host: string }[];
      preflight: { state: string; detail: string[] };
    }[];
    expect(tools.map((t) => t.tool).sort()).toEqual([
      'calculator',
      'calendar_read',
      'home_assistant.call_service',
      'home_assistant.entities',
      'web_search',
    ]);
    expect(tools.find((t) => t.tool === 'calculator')!.instances).toHaveLength(1);
    expect(tools.find((t) => t.tool === 'calculator')!.preflight.state).toBe('ready');
    expect(tools.find((t) => t.tool === 'home_assistant.call_service')!.preflight).toMatchObject({
      state: 'not_configured',
      detail: [expect.stringMatching(/CAESAR_HA__URL \(ha\.url\)/)],
    });

    const table = await runCli(['legion', 'list', '--data-dir', dir]);
    expect(table.stdout).toMatch(
      /^TOOL\s+VERSION\s+INSTANCES\s+HOSTS\s+IN-FLIGHT\s+REQUESTS\s+ERRORS\s+PREFLIGHT\s+RESTARTS$/m,
    );
    expect(table.stdout).toMatch(/^calculator\s+1\.0\.0\s+1\s.*\sready\s+0$/m);
    expect(table.stdout).toMatch(/^web_search\s+1\.0\.0\s+1\s.*\snot configured\s+0$/m);
    expect(table.stdout).toMatch(
      /^home_assistant\.call_service: not configured: set CAESAR_HA__URL/m,
    );

    // an unconfigured tool's chat answers with what to set, not a crash or "failed"
    const search = await runCli(['chat', 'search for nats jetstream', '--data-dir', dir]);
    expect(search.code).toBe(0);
    expect(search.stdout).toMatch(
      /web_search is not set up yet: .*CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL/,
    );
    const agenda = await runCli(['chat', "what's on my calendar this week", '--data-dir', dir]);
    expect(agenda.stdout).toMatch(/calendar_read is not set up yet: .*CAESAR_TOOLS__CALENDAR__/);
    const lamp = await runCli(['chat', 'turn on the kitchen light', '--data-dir', dir]);
    expect(lamp.stdout).toMatch(
      /I couldn't look up the light "kitchen" in Home Assistant: .*CAESAR_HA__URL/,
    );

    // the acceptance path: chat through the brain, found through runtime.json alone; the
    // unrestricted operator identity watches the dispatch: its grant is MACed for the one
    // calculator instance under the pins `caesar up` gives the brain (ADR 0108)
    const operator = await connectBus({
      servers: runtime.nats_url,
      auth: { kind: 'nkey', seedFile: runtime.nats_seed_file },
    });
    const grants: string[] = [];
    operator.subscribe(dispatchSubject('calculator'), {
      callback: (_err, msg) => {
        grants.push((JSON.parse(new TextDecoder().decode(msg.data)) as { grant: string }).grant);
      },
    });
    await operator.flush();
    const chat = await runCli(['chat', 'what is 17 * 23', '--data-dir', dir]);
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain('391');
    await operator.flush();
    await operator.close();
    const calculatorId = tools.find((t) => t.tool === 'calculator')!.instances[0]!.id;
    expect(grants).toEqual([
      expect.stringMatching(
        new RegExp(
          `^v2\\.${runtime.brain_key}\\.[0-9a-f]{64}\\.${calculatorId}:[A-Za-z0-9_-]{43}$`,
        ),
      ),
    ]);
    const audit = await runCli([
      'audit',
      'query',
      '--tool',
      'calculator',
      '--oldest',
      '--json',
      '--data-dir',
      dir,
    ]);
    expect(audit.code).toBe(0);
    const rows = audit.stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { event_type: string; decision_id: string; actor: string });
    expect(rows.map((r) => r.event_type)).toEqual(['tool.called', 'tool.result']);
    expect(rows[0]?.decision_id).toBe(rows[1]?.decision_id);
    for (const r of rows) expect(r.actor).toBe('operator');

    // the stack's files are for its owner only
    for (const file of [
      'audit.db',
      'conversations.db',
      'api-tokens.yaml',
      'runtime.json',
      'nats-server.conf',
      'nkeys',
    ]) {
      expect((await stat(join(dir, file))).mode & 0o077).toBe(0);
    }

    const stopping = Date.now();
    up.child.kill('SIGINT');
    expect(await up.exited).toEqual({ code: 0, signal: null });
    // Workers stop on SIGTERM well before the supervisor's 15 s SIGKILL fallback.
    expect(Date.now() - stopping).toBeLessThan(10_000);
    expect(alive(nats)).toBe(false);
    for (const pid of workers) expect(alive(pid)).toBe(false);
  }, 150_000);

  test('a brain that cannot start (broken policy) stops caesar up at once, saying why', async () => {
    const policy = join(dir, 'broken-policy.yaml');
    await writeFile(policy, 'version: 1\nallowed_tools:\n  - tool: [not, a, name]\n');
    up = startCli(
      [
        'up',
        '--nats-port',
        '0',
        '--api-port',
        '0',
        '--tools',
        'calculator',
        '--data-dir',
        join(dir, 'var'),
      ],
      { CAESAR_POLICY__FILE: policy },
    );
    const started = Date.now();
    const exit = await up.closed;
    expect(exit.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(up.stderr()).toMatch(/brain could not start: .*broken-policy\.yaml/);
    const { nats, workers } = pidsFrom(up.lines);
    await waitFor(
      () => !alive(nats) && workers.every((p) => !alive(p)),
      'children to exit',
      15_000,
    );
  }, 60_000);

  test('a SIGKILLed caesar up still leaves no nats-server or worker behind', async () => {
    up = startCli(['up', '--nats-port', '0', '--api-port', '0', '--data-dir', dir]);
    await up.waitForLine(/^ready: /, 60_000);
    const { nats, workers } = pidsFrom(up.lines);
    up.child.kill('SIGKILL');
    await up.exited;
    await waitFor(() => !alive(nats) && workers.every((p) => !alive(p)), 'orphans to exit', 15_000);
  }, 90_000);
});
