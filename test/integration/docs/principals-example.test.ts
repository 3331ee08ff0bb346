import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ConfirmResponseSchema,
  HttpErrorSchema,
  PendingConfirmationSchema,
  ToolCallReportSchema,
} from '../../../src/brain/api/index.js';
import { startBrain } from '../../../src/brain/daemon/index.js';
import type { RunningBrain } from '../../../src/brain/daemon/brain.js';
import { runPolicyExplain } from '../../../src/cli/commands/policy/explain.run.js';
import { loadConfig } from '../../../src/config/index.js';
import { SHIPPED_INTENTS_FILE } from '../../../src/config/shipped.js';
import { serveTools, type ToolWorker } from '../../../src/legion/index.js';
import { homeAssistantTool } from '../../../workers/home_assistant/index.js';
import { ROOT } from '../../helpers/doc-blocks.js';
import {
  FAKE_HA_TOKEN,
  setsState,
  startFakeHomeAssistant,
  type FakeHomeAssistant,
} from '../../helpers/fake-home-assistant.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * docs/policy.md, "Example: the kids' tablet", run as written (ADR 0096): its tokens file and
 * its policy, read from the doc (only the token values, which the doc leaves as
 * placeholders, are filled in), a real brain over a real nats-server, the shipped
 * home_assistant tool against a loopback Home Assistant. Lights yes, locks no (naming the
 * rule), and the garage waits for a parent: the confirmation names kids_tablet and only a
 * `parents` token may decide it.
 */

/** The YAML block under `<!-- example: <name> -->` in docs/policy.md. */
function docExample(doc: string, name: string): string {
  const at = doc.indexOf(`<!-- example: ${name} -->`);
  if (at < 0) throw new Error(`docs/policy.md has no example "${name}"`);
  const m = /```yaml\n([\s\S]*?)```/.exec(doc.slice(at));
  if (m === null) throw new Error(`example "${name}" has no yaml block`);
  return m[1]!;
}

const tokenOf: Record<string, string> = {};
let dir: string;
let nats: TestNats;
let ha: FakeHomeAssistant;
let worker: ToolWorker;
let brain: RunningBrain;
let policyFile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-principals-'));
  const doc = await readFile(join(ROOT, 'docs/policy.md'), 'utf8');
  policyFile = join(dir, 'policy.yaml');
  await writeFile(policyFile, docExample(doc, 'kids-tablet policy'));
  // each placeholder becomes a fresh token, remembered by the entry's name
  let name = '';
  const tokens = docExample(doc, 'kids-tablet tokens')
    .split('\n')
    .map((line) => {
      const named = /^\s*- name: (\S+)/.exec(line);
      if (named) name = named[1]!;
      if (!/^\s*token: </.test(line)) return line;
      tokenOf[name] = randomBytes(32).toString('base64url');
      return line.replace(/token: <.*>$/, `token: ${tokenOf[name]}`);
    })
    .join('\n');
  const tokensFile = join(dir, 'var', 'api-tokens.yaml');
  await mkdir(join(dir, 'var'), { mode: 0o700 });
  await writeFile(tokensFile, tokens, { mode: 0o600 });
  await chmod(tokensFile, 0o600);

  ha = await startFakeHomeAssistant({
    entities: [
      { entity_id: 'light.kids_room', state: 'off', attributes: { friendly_name: 'Kids Room' } },
      { entity_id: 'lock.front_door', state: 'locked', attributes: { friendly_name: 'Front' } },
      { entity_id: 'cover.garage', state: 'closed', attributes: { friendly_name: 'Garage' } },
    ],
    services: { 'cover.open_cover': { run: setsState('open') } },
  });
  nats = await startNats();
  worker = await serveTools([homeAssistantTool], {
    nc: await nats.connect(),
    host: 'test',
    config: { ha: { url: ha.url, token: FAKE_HA_TOKEN } },
  });
  const config = await loadConfig({
    env: {
      CAESAR_BUS__URL: nats.url,
      CAESAR_DATA_DIR: join(dir, 'var'),
      CAESAR_POLICY__FILE: policyFile,
      CAESAR_BRAIN__INTENTS_FILE: SHIPPED_INTENTS_FILE,
      CAESAR_API__PORT: '0',
      CAESAR_LOG__LEVEL: 'silent',
    },
    cwd: dir,
  });
  brain = await startBrain(config, { sweepIntervalMs: 500 });
  // the worker is discovered and its preflight is ready before the first call
  await waitFor(
    async () => {
      const res = await api('operator', 'GET', '/v1/tools');
      const tools = (await res.json()) as { name: string; preflight: { state: string } }[];
      const call = tools.find((t) => t.name === 'home_assistant.call_service');
      return call?.preflight.state === 'ready' ? true : undefined;
    },
    'home_assistant to be served and ready',
    20_000,
    100,
  );
}, 60_000);

afterAll(async () => {
  await brain?.close();
  await worker?.stop();
  await nats?.stop();
  await ha?.close();
  await rm(dir, { recursive: true, force: true });
});

function api(who: string, method: string, path: string, body?: unknown): Promise<Response> {
  const token = tokenOf[who];
  if (token === undefined) throw new Error(`the doc has no token ${who}`);
  return fetch(`${brain.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** A Home Assistant call by `who`, through the gateway. */
async function callService(who: string, service: string, entity: string) {
  const [domain, name] = service.split('.');
  const res = await api(who, 'POST', '/v1/tools/home_assistant.call_service/invoke', {
    input: { domain, service: name, target: { entity_id: entity } },
  });
  expect(res.status).toBe(200);
  return ToolCallReportSchema.parse(await res.json());
}

interface Row {
  readonly event_type: string;
  readonly actor: string;
  readonly principal?: string;
}
async function rowsOf(decisionId: string): Promise<Row[]> {
  const res = await api('operator', 'GET', `/v1/audit?decision_id=${decisionId}&order=oldest`);
  return (await res.json()) as Row[];
}

describe("docs/policy.md: the kids' tablet", () => {
  test('the doc gives the tablet a principal and a group, the operator none', () => {
    expect(Object.keys(tokenOf)).toEqual(['operator', 'kids-tablet', 'mum-phone', 'dad-phone']);
  });

  test('the kids may switch the lights', async () => {
    const r = await callService('kids-tablet', 'light.turn_on', 'light.kids_room');
    expect(r.outcome).toBe('ok');
    expect(r.rule).toBe('lights-on');
    expect(ha.states.get('light.kids_room')?.state).toBe('on');
    const rows = await rowsOf(r.decision_id);
    expect(rows.map((x) => [x.event_type, x.actor, x.principal])).toEqual([
      ['service.called', 'kids-tablet', 'kids_tablet'],
      ['tool.result', 'kids-tablet', 'kids_tablet'],
    ]);
  });

  test('the kids may never unlock a door, and the refusal names the rule; a parent may', async () => {
    const kid = await callService('kids-tablet', 'lock.unlock', 'lock.front_door');
    expect(kid.outcome).toBe('denied');
    expect(kid.rule).toBe('kids-never-unlock');
    expect(kid.reason).toContain('kids-never-unlock');
    expect(ha.calls.some((c) => c.service === 'unlock')).toBe(false);
    expect(ha.states.get('lock.front_door')?.state).toBe('locked');
    const denied = await rowsOf(kid.decision_id);
    expect(denied.map((x) => [x.event_type, x.principal])).toEqual([
      ['tool.denied', 'kids_tablet'],
    ]);

    const mum = await callService('mum-phone', 'lock.unlock', 'lock.front_door');
    expect(mum.outcome).toBe('ok');
    expect(mum.rule).toBe('parents-unlock');
    expect(ha.states.get('lock.front_door')?.state).toBe('unlocked');
  });

  test('the garage waits for a parent: the confirmation names kids_tablet, only parents decide it', async () => {
    const held = await callService('kids-tablet', 'cover.open_cover', 'cover.garage');
    expect(held.outcome).toBe('confirmation_required');
    const ticket = held.confirmation!;
    expect(ticket.asked_by).toMatchObject({
      kind: 'api',
      actor: 'kids-tablet',
      principal: 'kids_tablet',
    });
    expect(ticket.approvers).toEqual({ principals: [], groups: ['parents'] });

    const listed = await api('kids-tablet', 'GET', '/v1/confirmations');
    const pending = PendingConfirmationSchema.array().parse(await listed.json());
    expect(pending.find((p) => p.id === ticket.id)).toMatchObject({
      requested_by: 'kids-tablet',
      principal: 'kids_tablet',
      rule: 'garage-needs-a-parent',
      approvers: { groups: ['parents'] },
    });

    // the tablet has the confirm scope, but not the group: refused, and the call still waits
    for (const approve of [true, false]) {
      const own = await api('kids-tablet', 'POST', `/v1/confirmations/${ticket.id}`, { approve });
      expect(own.status).toBe(403);
      const error = HttpErrorSchema.parse(await own.json()).error;
      expect(error.code).toBe('approver_required');
      expect(error.message).toContain('group parents');
      expect(error.message).toContain('principal kids_tablet');
    }
    expect(ha.states.get('cover.garage')?.state).toBe('closed');

    const ok = await api('dad-phone', 'POST', `/v1/confirmations/${ticket.id}`, { approve: true });
    expect(ok.status).toBe(200);
    const decided = ConfirmResponseSchema.parse(await ok.json());
    expect(decided).toMatchObject({ decision: 'approved', outcome: 'ok' });
    expect(ha.states.get('cover.garage')?.state).toBe('open');
    const rows = await rowsOf(held.decision_id);
    expect(rows.map((x) => [x.event_type, x.actor, x.principal])).toEqual([
      ['tool.confirmation_requested', 'kids-tablet', 'kids_tablet'],
      ['tool.confirmed', 'dad-phone', 'dad'],
      ['service.called', 'kids-tablet', 'kids_tablet'],
      ['tool.result', 'kids-tablet', 'kids_tablet'],
    ]);
  });

  test('a token without a principal is its own: the operator is judged and audited as operator', async () => {
    const r = await callService('operator', 'light.turn_off', 'light.kids_room');
    expect(r.outcome).toBe('ok');
    expect((await rowsOf(r.decision_id))[0]).toMatchObject({
      actor: 'operator',
      principal: 'operator',
    });
  });

  test("the doc's `caesar policy explain --principal` shows the denial before anyone asks", async () => {
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => out.push(l) };
    const opts = {
      policy: policyFile,
      target: '{"entity_id": "lock.front_door"}',
      principal: 'kids_tablet',
      group: ['kids'],
    };
    expect(await runPolicyExplain('lock.unlock', undefined, opts, io)).toBe(0);
    expect(out[0]).toMatch(/^DENY {2}kids-never-unlock \(/);
    expect(out.at(-1)).toBe('as principal kids_tablet (groups kids)');
  });
});
