import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openAuditLog, type AuditLog } from '../../../src/audit/index.js';
import { Agent } from '../../../src/brain/agent/index.js';
import { openConversationStore } from '../../../src/brain/conversations/index.js';
import type { ConversationStore } from '../../../src/brain/conversations/store.js';
import { createDispatcher } from '../../../src/brain/dispatch/index.js';
import { ToolGateway } from '../../../src/brain/gateway/index.js';
import { loadIntents } from '../../../src/brain/intents/index.js';
import { startRegistry, type Registry } from '../../../src/brain/registry/index.js';
import { SHIPPED_INTENTS_FILE } from '../../../src/config/shipped.js';
import { serveTools, type ToolWorker } from '../../../src/legion/index.js';
import { openPolicyStore, type PolicyStore } from '../../../src/policy/index.js';
import { webSearchTool } from '../../../workers/web_search/index.js';
import {
  startFakeSearxng,
  type FakeSearch,
  type FakeSearxngOptions,
} from '../../helpers/fake-search.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * "search for nats jetstream" end to end in the brain with the real web_search worker over
 * NATS against a loopback SearXNG: the reply lists titles with their domains and names the
 * backend, and a domain_allowlist rule lets only its domains through, in the reply and in
 * the audit log.
 */
const RESULTS = [
  { url: 'https://docs.nats.io/nats-concepts/jetstream', title: 'JetStream | NATS Docs' },
  { url: 'https://www.synadia.com/blog/jetstream', title: 'Why JetStream' },
  { url: 'https://github.com/nats-io/nats-server', title: 'nats-server on GitHub' },
];

let nats: TestNats;
let nc: NatsConnection;
let searx: FakeSearch<FakeSearxngOptions>;
let dir: string;
let audit: AuditLog;
let registry: Registry;
let conversations: ConversationStore;
let worker: ToolWorker;
const opened: { gateway: ToolGateway; policy: PolicyStore }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'caesar-search-'));
  nats = await startNats();
  nc = await nats.connect();
  searx = await startFakeSearxng({ results: RESULTS });
  audit = openAuditLog({ path: join(dir, 'audit.db') });
  registry = await startRegistry({ nc });
  worker = await serveTools([webSearchTool], {
    nc: await nats.connect(),
    host: 'test',
    config: { web_search: { searxng_url: searx.url } },
  });
  await waitFor(() => registry.tools().length === 1, 'the registry to learn web_search');
  conversations = openConversationStore({ file: join(dir, 'conv.db'), historyLimit: 40 });
});

afterAll(async () => {
  for (const o of opened) {
    o.gateway.close();
    o.policy.close();
  }
  conversations?.close();
  await worker?.stop();
  await registry?.close();
  await audit?.close();
  await searx?.close();
  await nats?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** An agent whose policy is `yaml`. */
async function agentWith(name: string, yaml: string): Promise<Agent> {
  writeFileSync(join(dir, name), yaml);
  const policy = await openPolicyStore({ path: join(dir, name), reloadSignal: null });
  const gateway = new ToolGateway({
    tools: registry,
    policy,
    audit,
    dispatcher: createDispatcher({ nc }),
    callTimeoutMs: 10_000,
    confirmationTtlMs: 60_000,
  });
  opened.push({ gateway, policy });
  return new Agent({
    gate: gateway,
    intents: await loadIntents(SHIPPED_INTENTS_FILE),
    conversations,
    audit,
    timeZone: 'UTC',
  });
}

describe('"search for …" through the brain', () => {
  test('lists titles with domains and names the backend', async () => {
    const agent = await agentWith('open.yaml', 'version: 1\nallowed_tools:\n  - web_search\n');
    const r = await agent.chat({ message: 'search for nats jetstream' }, { actor: 'ops' });
    expect(r.reply).toBe(
      [
        'Top results for nats jetstream (from searxng):',
        '- JetStream | NATS Docs (docs.nats.io)',
        '- Why JetStream (synadia.com)',
        '- nats-server on GitHub (github.com)',
      ].join('\n'),
    );
    expect(searx.requests.at(-1)?.url).toMatch(/q=nats\+jetstream/);
  });

  test('a domain_allowlist rule lets only its domains through, in the reply and the audit log', async () => {
    const agent = await agentWith(
      'allowlist.yaml',
      [
        'version: 1',
        'allowed_tools:',
        '  - tool: web_search',
        '    input:',
        '      domain_allowlist: [nats.io]',
        '',
      ].join('\n'),
    );
    const r = await agent.chat({ message: 'search for nats jetstream' }, { actor: 'ops' });
    expect(r.reply).toBe(
      'Top results for nats jetstream (from searxng):\n- JetStream | NATS Docs (docs.nats.io)',
    );
    const row = audit.query({
      decisionId: r.tool_calls[0]!.decision_id,
      types: ['tool.result'],
    })[0];
    expect(JSON.stringify(row?.payload)).not.toContain('synadia.com');
    expect(row?.payload).toMatchObject({
      obligations: [{ type: 'filter_result_urls', dropped: 2 }],
    });
  });

  test('engines that are all down are not "nothing found"', async () => {
    const agent = await agentWith('down.yaml', 'version: 1\nallowed_tools:\n  - web_search\n');
    searx.set({
      results: [],
      unresponsive: [
        ['duckduckgo', 'timeout'],
        ['brave', 'CAPTCHA'],
      ],
    });
    try {
      const r = await agent.chat({ message: 'search for nats' }, { actor: 'ops' });
      expect(r.tool_calls[0]?.error?.code).toBe('upstream_empty');
      expect(r.reply).toMatch(/^web_search failed: .*duckduckgo.*timeout/);
      expect(r.reply).not.toContain('nothing found');
    } finally {
      searx.set({ results: RESULTS, unresponsive: [] });
    }
  });
});
