import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDispatcher } from '../../../src/brain/dispatch/index.js';
import { serveTools, ToolConfigError } from '../../../src/legion/index.js';
import { PreflightReplySchema, preflightSubject } from '../../../src/protocol/index.js';
import { createWebSearchTool } from '../../../workers/web_search/index.js';
import { loadShippedTools } from '../../../workers/index.js';
import {
  startFakeSearxng,
  type FakeSearch,
  type FakeSearxngOptions,
} from '../../helpers/fake-search.js';
import { startNats, type TestNats } from '../../helpers/nats.js';

const dec = new TextDecoder();

let nats: TestNats;
let searx: FakeSearch<FakeSearxngOptions>;

beforeAll(async () => {
  nats = await startNats();
  searx = await startFakeSearxng({
    results: [{ url: 'https://docs.nats.io/', title: '<b>NATS</b> Docs', content: 'Docs.' }],
  });
});
afterAll(async () => {
  await searx?.close();
  await nats?.stop();
});

describe('web_search over NATS', () => {
  test('served with its config section, dispatched by the brain dispatcher, answered by SearXNG', async () => {
    const worker = await serveTools([createWebSearchTool()], {
      nc: await nats.connect(),
      host: 'test-host',
      config: { web_search: { searxng_url: searx.url, result_limit: '3' } },
    });
    try {
      const dispatcher = createDispatcher({ nc: await nats.connect() });
      const reply = await dispatcher.dispatch(
        'web_search',
        { query: 'nats docs' },
        { decisionId: 'dec-nats-1', deadline: Date.now() + 5000 },
      );
      expect(reply).toMatchObject({
        v: 1,
        success: true,
        worker: { host: 'test-host' },
        result: {
          query: 'nats docs',
          backend: 'searxng',
          results: [
            {
              title: 'NATS Docs',
              url: 'https://docs.nats.io/',
              domain: 'docs.nats.io',
              snippet: 'Docs.',
            },
          ],
        },
      });
      expect(searx.requests.at(-1)?.url).toContain('q=nats+docs');

      const refused = await dispatcher.dispatch(
        'web_search',
        { query: '   ' },
        { decisionId: 'dec-nats-2', deadline: Date.now() + 5000 },
      );
      expect(refused).toMatchObject({ success: false, error: { code: 'invalid_input' } });

      // the seed design's {query, limit} (ADR 0088): taken; both names with two numbers: refused
      const seed = await dispatcher.dispatch(
        'web_search',
        { query: 'nats docs', limit: 1 },
        { decisionId: 'dec-nats-3', deadline: Date.now() + 5000 },
      );
      expect(seed).toMatchObject({ success: true, result: { results: [{ title: 'NATS Docs' }] } });
      const both = await dispatcher.dispatch(
        'web_search',
        { query: 'nats docs', limit: 1, max_results: 2 },
        { decisionId: 'dec-nats-4', deadline: Date.now() + 5000 },
      );
      expect(both).toMatchObject({ success: false, error: { code: 'invalid_input' } });
      expect(JSON.stringify(both)).toMatch(/limit \(1\) and max_results \(2\)/);

      const nc = await nats.connect();
      const msg = await nc.request(preflightSubject('web_search'), undefined, { timeout: 5000 });
      const preflight = PreflightReplySchema.parse(JSON.parse(dec.decode(msg.data)));
      expect(preflight).toMatchObject({
        tool: 'web_search',
        ok: true,
        execution_locality: 'remote_api',
      });
      expect(preflight.checks.map((c) => c.name)).toContain('searxng.json_format');
    } finally {
      await worker.stop();
    }
  });

  test('the shipped registry serves web_search; unconfigured, it starts and answers not_configured', async () => {
    const tools = await loadShippedTools(['web_search']);
    const worker = await serveTools(tools, { nc: await nats.connect() });
    try {
      const reply = await createDispatcher({ nc: await nats.connect() }).dispatch(
        'web_search',
        { query: 'nats' },
        { decisionId: 'dec-nats-3', deadline: Date.now() + 5000 },
      );
      expect(reply).toMatchObject({
        success: false,
        error: { code: 'not_configured', retryable: false },
      });
      expect(reply.success ? '' : reply.error.message).toContain(
        'CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL',
      );
      const [preflight] = await worker.preflight();
      expect(preflight).toMatchObject({ ok: false, checks: [{ name: 'configured', ok: false }] });
    } finally {
      await worker.stop();
    }
  });

  test('a bad section fails the worker start, naming the env vars and never the key', async () => {
    const key = 'BSA-must-not-leak-123';
    const startWith = async (section: Record<string, unknown>) => {
      const start = serveTools([createWebSearchTool()], {
        nc: await nats.connect(),
        config: { web_search: section },
      });
      const err = await start.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ToolConfigError);
      const message = (err as Error).message;
      expect(message).not.toContain(key);
      return message;
    };
    const typed = await startWith({ brave_api_key: key, result_limit: 'many', api_key: 'x' });
    expect(typed).toContain(
      'tools.web_search.result_limit (CAESAR_TOOLS__WEB_SEARCH__RESULT_LIMIT): expected a whole number from 1 to 100',
    );
    expect(typed).toContain("tools.web_search (CAESAR_TOOLS__WEB_SEARCH): unknown key 'api_key'");

    const order = await startWith({ brave_api_key: key, backends: 'searxng,brave' });
    expect(order).toContain(
      'tools.web_search.backends (CAESAR_TOOLS__WEB_SEARCH__BACKENDS): names searxng, which is not configured: set CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL',
    );
  });
});
