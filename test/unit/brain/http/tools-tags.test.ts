import { describe, expect, test } from 'vitest';
import { HttpErrorSchema } from '../../../../src/brain/api/index.js';
import { auth, harness } from './harness.js';

const details = (body: unknown) =>
  HttpErrorSchema.parse(body).error.details as Array<{ path: string; message: string }>;

describe('GET /v1/tools tag filter', () => {
  test.each([
    ['no parameters', '/v1/tools', { includeTags: [], excludeTags: [] }],
    [
      'comma-separated lists',
      '/v1/tools?include_tags=home,network&exclude_tags=network',
      { includeTags: ['home', 'network'], excludeTags: ['network'] },
    ],
    [
      'a repeated parameter, spaces and empty items',
      '/v1/tools?include_tags=home&include_tags=web,%20math,,',
      { includeTags: ['home', 'web', 'math'], excludeTags: [] },
    ],
    ['an empty value (no filter)', '/v1/tools?exclude_tags=', { includeTags: [], excludeTags: [] }],
  ])('%s reach listTools as a TagFilter', async (_why, url, filter) => {
    await using h = await harness();
    const res = await h.app.inject({ url, headers: auth() });
    expect(res.statusCode).toBe(200);
    expect(h.brain.callsTo('listTools').map((c) => c.args)).toEqual([[filter]]);
  });

  test.each([
    ['an upper-case tag', 'include_tags=Home', 'include_tags[0]'],
    ['a tag with a dot', 'include_tags=home,light.kitchen', 'include_tags[1]'],
    ['a tag over 32 characters', `exclude_tags=${'x'.repeat(33)}`, 'exclude_tags[0]'],
    [
      'more than 32 tags',
      `include_tags=${Array.from({ length: 33 }, (_, i) => `t${i}`).join(',')}`,
      'include_tags',
    ],
    ['an unknown parameter', 'tags=home', 'tags'],
  ])('%s is a 400 naming the parameter; the brain is not asked', async (_why, query, path) => {
    await using h = await harness();
    const res = await h.app.inject({ url: `/v1/tools?${query}`, headers: auth() });
    expect(res.statusCode).toBe(400);
    expect(HttpErrorSchema.parse(res.json()).error.code).toBe('invalid_request');
    expect(details(res.json()).map((d) => d.path)).toEqual([path]);
    expect(h.brain.callsTo('listTools')).toEqual([]);
  });
});
