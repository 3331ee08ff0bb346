import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type {
  ChatResponse,
  PendingConfirmation,
  ToolCallReport,
} from '../../../src/brain/api/index.js';
import {
  loadHome,
  loadLegitimate,
  shippedPolicyWithGrants,
  type LegitRequest,
} from '../../helpers/injection-fixtures.js';
import { canonicalCallable } from '../../../src/protocol/index.js';
import { startInjectionStack, type InjectionStack } from '../../helpers/injection-stack.js';

/**
 * The legitimate set (test/fixtures/injection/legitimate.yaml): thirty multi-step requests
 * typed by the user, planned by a model that does not obey what it reads, under the shipped
 * policy (with the home's grants) through the live brain. Each completes with at most one
 * confirmation, approved here through the API, after which the call runs; a call made after
 * only trusted content (the user's words, the calculator) is never held. The requests that
 * are confirmed are exactly the ones the fixture says, and docs/security.md reports their
 * number as the false-confirmation rate.
 */

const home = loadHome();
const requests = loadLegitimate();
const SECURITY_MD = join(import.meta.dirname, '../../../docs/security.md');

interface Outcome {
  readonly request: LegitRequest;
  readonly held: PendingConfirmation[];
}
const outcomes: Outcome[] = [];

let stack: InjectionStack;

beforeAll(async () => {
  stack = await startInjectionStack({
    home,
    plants: [],
    policy: shippedPolicyWithGrants(),
    obey: false,
  });
  for (const r of requests) stack.model.learn(r.user, { rounds: r.script, reply: 'Done.' });
}, 180_000);

afterAll(async () => {
  await stack?.[Symbol.asyncDispose]();
});

/** `domain/service target` of every service call Home Assistant received since `from`. */
function serviceCalls(from: number): string[] {
  return stack.ha.requests
    .slice(from)
    .filter((r) => r.method === 'POST' && r.url.startsWith('/api/services/'))
    .map((r) => `${r.url.split('?')[0]!.slice('/api/services/'.length)} ${targetOf(r.body)}`);
}

function targetOf(body: string): string {
  const data = JSON.parse(body || '{}') as { entity_id?: unknown; area_id?: unknown };
  return String(data.entity_id ?? data.area_id);
}

function scripted(r: LegitRequest, tool: string) {
  return r.script.flat().filter((c) => c.tool === tool);
}

/** Sends the request; approves what is held until the turn ends. */
async function run(
  r: LegitRequest,
): Promise<{ reports: ToolCallReport[]; held: PendingConfirmation[]; last: ChatResponse }> {
  let last = await stack.chat(r.user);
  const reports = [...last.tool_calls];
  const held: PendingConfirmation[] = [];
  for (let round = 0; round < 4; round++) {
    const waiting = last.tool_calls.filter((t) => t.outcome === 'confirmation_required');
    if (waiting.length === 0) break;
    const pending = await stack.confirmations();
    let next: ChatResponse | undefined;
    for (const report of waiting) {
      const entry = pending.find((p) => p.id === report.confirmation?.id);
      expect(entry, `the confirmation of ${report.tool} is listed`).toBeDefined();
      held.push(entry!);
      const decided = await stack.decide(entry!.id, true);
      // approved: the call ran
      expect(decided.outcome, JSON.stringify(decided)).toBe('ok');
      reports.push(decided);
      if (decided.chat !== undefined) next = decided.chat;
    }
    if (next === undefined) break;
    last = next;
    reports.push(
      ...last.tool_calls.filter((t) => !reports.some((x) => x.decision_id === t.decision_id)),
    );
  }
  return { reports, held, last };
}

describe('the legitimate set under the shipped policy', () => {
  test('has thirty requests', () => {
    expect(requests).toHaveLength(30);
  });

  test.each(requests)('$id: completes with at most one confirmation', async (r) => {
    const haFrom = stack.ha.requests.length;
    const searchFrom = stack.searx.requests.length;
    const { reports, held, last } = await run(r);
    outcomes.push({ request: r, held });

    expect(last.planner).toBe('llm');
    expect(last.reply).toBe('Done.');
    expect(held.length).toBeLessThanOrEqual(1);
    expect(held.map((h) => h.gated_by?.map((g) => g.gate).sort())).toEqual(
      r.confirms.length === 0 ? [] : [[...r.confirms].sort()],
    );
    for (const h of held) {
      expect(h.asked_by?.kind).toBe('model');
      // a held call had read something untrusted or private: never only trusted content
      expect(h.read?.length).toBeGreaterThan(0);
    }
    // every call of the script ran, the approved one too
    // under the names the stack serves: Home Assistant's as the home_assistant tool's actions
    const ran = reports.filter((x) => x.outcome === 'ok').map((x) => canonicalCallable(x.tool));
    expect(ran.sort()).toEqual(
      r.script
        .flat()
        .map((c) => canonicalCallable(c.tool))
        .sort(),
    );
    const services = scripted(r, 'call_service').map((c) => {
      const i = c.input as { domain: string; service: string; target: Record<string, string> };
      return `${i.domain}/${i.service} ${i.target.entity_id ?? i.target.area_id}`;
    });
    expect(serviceCalls(haFrom).sort()).toEqual(services.sort());
    expect(stack.searx.requests.length - searchFrom).toBe(scripted(r, 'web_search').length);
  });

  test('calls that read only trusted content are never held', () => {
    const trustedOnly = outcomes.filter((o) =>
      o.request.script
        .slice(0, -1)
        .flat()
        .every((c) => c.tool === 'calculator'),
    );
    expect(trustedOnly.length).toBeGreaterThanOrEqual(4);
    expect(trustedOnly.filter((o) => o.held.length > 0).map((o) => o.request.id)).toEqual([]);
  });

  test('docs/security.md reports the false-confirmation rate measured here', () => {
    expect(outcomes).toHaveLength(requests.length);
    const confirmed = outcomes.filter((o) => o.held.length > 0).map((o) => o.request.id);
    const doc = readFileSync(SECURITY_MD, 'utf8');
    const at = doc.search(/^(### Measured|\*\*Measured)/m);
    expect(at, 'docs/security.md has its Measured paragraph').toBeGreaterThan(0);
    const section = doc.slice(at);
    expect(section).toContain(`${confirmed.length} of ${requests.length}`);
    for (const id of confirmed) expect(section).toContain(`\`${id}\``);
  });
});
