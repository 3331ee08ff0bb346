import { describe, expect, test } from 'vitest';
import { TOOL_MATCHERS } from '../../../src/policy/matchers/registry.js';
import { webSearchTool } from '../../../workers/web_search/index.js';
import { braveLanguage } from '../../../workers/web_search/backends/brave.js';
import { TOOL_TIMEOUT_MS } from '../../../workers/web_search/config.js';
import {
  askedResults,
  WebSearchInputSchema,
  WebSearchOutputSchema,
} from '../../../workers/web_search/schema.js';

describe('web_search input', () => {
  test('the query is trimmed; max_results and language are optional', () => {
    expect(WebSearchInputSchema.parse({ query: '  nats  ' })).toEqual({ query: 'nats' });
    expect(WebSearchInputSchema.parse({ query: 'x', max_results: 100, language: 'pt-BR' })).toEqual(
      {
        query: 'x',
        max_results: 100,
        language: 'pt-BR',
      },
    );
  });

  test.each([
    [{}, 'query'],
    [{ query: '' }, 'query'],
    [{ query: '   ' }, 'query'],
    [{ query: 'q'.repeat(501) }, 'query'],
    [{ query: 'x', max_results: 0 }, 'max_results'],
    [{ query: 'x', max_results: 101 }, 'max_results'],
    [{ query: 'x', max_results: 2.5 }, 'max_results'],
    [{ query: 'x', max_results: '5' }, 'max_results'],
    [{ query: 'x', language: 'english' }, 'language'],
    [{ query: 'x', language: 'en_US' }, 'language'],
    [{ query: 'x', language: 'e' }, 'language'],
    [{ query: 'x', site: 'example.org' }, ''],
  ])('%j is refused at %j', (input, path) => {
    const r = WebSearchInputSchema.safeParse(input);
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.'))).toContain(path);
  });

  test.each(['en', 'de', 'pt-BR', 'zh-Hant', 'zh-Hant-TW', 'es-419', 'all'])(
    'language %j is accepted',
    (language) => {
      expect(WebSearchInputSchema.safeParse({ query: 'x', language }).success).toBe(true);
    },
  );

  test("the policy matcher's input fields and aliases are the worker's input fields", () => {
    const matcher = TOOL_MATCHERS.get('web_search');
    expect([...(matcher?.fields ?? []), ...Object.keys(matcher?.aliases ?? {})].sort()).toEqual(
      Object.keys(WebSearchInputSchema.shape).sort(),
    );
    expect(matcher?.aliases).toEqual({ limit: 'max_results' });
  });

  test("limit is the seed design's name for max_results: either, or both when equal", () => {
    const asked = (input: object) => askedResults(WebSearchInputSchema.parse(input));
    expect(asked({ query: 'x', limit: 7 })).toBe(7);
    expect(asked({ query: 'x', max_results: 7 })).toBe(7);
    expect(asked({ query: 'x', limit: 7, max_results: 7 })).toBe(7);
    expect(asked({ query: 'x' })).toBeUndefined();
  });

  test('limit and max_results both given and different: refused, naming both fields', () => {
    const r = WebSearchInputSchema.safeParse({ query: 'x', limit: 3, max_results: 5 });
    expect(r.success).toBe(false);
    expect(r.error?.issues).toEqual([
      expect.objectContaining({
        path: ['limit'],
        message: expect.stringMatching(/limit \(3\) and max_results \(5\)/) as string,
      }),
    ]);
  });

  test('results carry `url`, the field the domain_allowlist obligation filters', () => {
    const out = WebSearchOutputSchema.parse({
      query: 'x',
      backend: 'brave',
      results: [{ title: 't', url: 'https://a.example/', domain: 'a.example', snippet: '' }],
    });
    expect(out.results[0]?.url).toBe('https://a.example/');
    expect(WebSearchOutputSchema.safeParse({ ...out, backend: 'google' }).success).toBe(false);
  });
});

describe('web_search spec', () => {
  test('declares what a planner and an operator reason about', () => {
    expect(webSearchTool.spec).toMatchObject({
      name: 'web_search',
      version: '1.0.0',
      title: 'Web search',
      tags: ['tool', 'web', 'network'],
      annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
      determinism: 'nondeterministic',
      execution_locality: 'remote_api',
      resource_requirements: { cpu: 'low', memory_mb: 64, network: true },
      cost_model: {
        kind: 'metered',
        unit: '1 API request per call (Brave or Tavily); SearXNG free',
      },
      timeout_ms: TOOL_TIMEOUT_MS,
      input_schema: {
        type: 'object',
        required: ['query'],
        additionalProperties: false,
        properties: {
          query: { type: 'string', minLength: 1, maxLength: 500 },
          max_results: { type: 'integer', minimum: 1, maximum: 100 },
        },
      },
    });
    expect(webSearchTool.spec.output_schema).toMatchObject({
      required: ['query', 'backend', 'results'],
    });
  });

  test('the description gives an example, what it refuses and that answers name the backend', () => {
    const d = webSearchTool.spec.description;
    expect(d).toContain('{"query": ');
    expect(d).toContain('invalid_input');
    expect(d).toContain('`backend`');
    expect(d).toContain('upstream_empty');
  });
});

describe('Brave search_lang', () => {
  test.each([
    ['en', 'en'],
    ['de-AT', 'de'],
    ['ja', 'jp'],
    ['zh-TW', 'zh-hant'],
    ['zh', 'zh-hans'],
    ['pt-BR', 'pt-br'],
    ['en-GB', 'en-gb'],
    ['all', undefined],
  ])('%s -> %s', (tag, code) => {
    expect(braveLanguage(tag)).toBe(code);
  });
});
