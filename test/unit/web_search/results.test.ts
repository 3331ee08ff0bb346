import { describe, expect, test } from 'vitest';
import {
  MAX_SNIPPET_LENGTH,
  MAX_TITLE_LENGTH,
  normaliseResults,
  parsePublished,
  plainText,
  type Candidate,
} from '../../../workers/web_search/results.js';

const c = (url: string, more: Partial<Candidate> = {}): Candidate => ({
  title: 'T',
  snippet: 'S',
  url,
  ...more,
});

describe('plainText', () => {
  test.each([
    ['Brave <strong>bold</strong> marks', 'Brave bold marks'],
    ['<strong>NATS</strong>&#x27;s streaming', "NATS's streaming"],
    ['a &amp; b &lt;c&gt; &quot;d&quot; &#39;e&#39; &hellip;', 'a & b <c> "d" \'e\' …'],
    ['&lt;b&gt;escaped twice&lt;/b&gt; stays plain', 'escaped twice stays plain'],
    ['&lt;policy&gt; is text, not a tag', '<policy> is text, not a tag'],
    ['line<br>break<p>para</p>end', 'line break para end'],
    ['<!-- comment -->visible', 'visible'],
    ['tabs\tand\n\nnewlines   collapse', 'tabs and newlines collapse'],
    ['zero\u200bwidth\u0000and\u0007control', 'zerowidthandcontrol'],
    ['&unknownentity; kept', '&unknownentity; kept'],
    ['&#0; and &#xD800; are not characters', 'and are not characters'],
    ['   ', ''],
  ])('%j -> %j', (raw, text) => {
    expect(plainText(raw, 500)).toBe(text);
  });

  test('cuts at a word boundary with an ellipsis, within the cap', () => {
    const text = plainText('word '.repeat(100), 42);
    expect(text.length).toBeLessThanOrEqual(42);
    expect(text).toMatch(/^(word )+word…$/);
  });

  test.each([
    ['<!-- a <!-- b --> c', 'c'],
    ['x <!-- never closed', 'x <!-- never closed'],
    ['--> before <!-- never closed', '--> before <!-- never closed'],
    ['<!--> is not a comment --> end', 'end'],
    ['<b>bold</b><!-- c -->d<i', 'bold d<i'],
  ])('comments: %j -> %j', (raw, text) => {
    expect(plainText(raw, 500)).toBe(text);
  });

  test('a backend that sends 256 KiB of unterminated comments is cleaned in linear time', () => {
    // the lazy comment regex was quadratic here: 12 s for 256 KiB, minutes for the 2 MiB
    // an answer may hold; linear, it takes milliseconds, so 2 s holds on a loaded machine
    const raw = `title ${'<!--'.repeat(65_536)}`;
    const started = performance.now();
    const text = plainText(raw, MAX_SNIPPET_LENGTH);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(text.startsWith('title <!--<!--')).toBe(true);
    expect(text.endsWith('…')).toBe(true);
  });

  test('never halves a character made of two UTF-16 units', () => {
    const text = plainText('😀'.repeat(50), 10);
    expect(Array.from(text)).toHaveLength(10);
    expect(text).toBe(`${'😀'.repeat(9)}…`);
  });
});

describe('parsePublished', () => {
  test.each([
    ['2024-03-05T08:30:00', '2024-03-05T08:30:00.000Z'], // SearXNG, Brave page_age: read as UTC
    ['2024-03-05 08:30', '2024-03-05T08:30:00.000Z'],
    ['2024-03-05', '2024-03-05T00:00:00.000Z'],
    ['2024-03-05T08:30:00+02:00', '2024-03-05T06:30:00.000Z'],
    ['Tue, 05 Mar 2024 08:30:00 GMT', '2024-03-05T08:30:00.000Z'], // Tavily news
    ['March 5, 2024', '2024-03-05T00:00:00.000Z'], // Brave age
    ['3 days ago', undefined],
    ['', undefined],
    [undefined, undefined],
    ['not a date', undefined],
    ['1200-01-01', undefined],
    ['2999-01-01', undefined],
  ])('%j -> %j', (raw, iso) => {
    expect(parsePublished(raw)).toBe(iso);
  });
});

describe('normaliseResults', () => {
  test('keeps only well-formed http(s) URLs', () => {
    const out = normaliseResults(
      [
        c('https://ok.example/a'),
        c('ftp://files.example/x'),
        c('javascript:alert(1)'),
        c('mailto:a@b.c'),
        c('/relative/path'),
        c('not a url'),
        c(`https://long.example/${'x'.repeat(2100)}`),
        c('http://plain.example/b'),
      ],
      10,
    );
    expect(out.map((r) => r.url)).toEqual(['https://ok.example/a', 'http://plain.example/b']);
  });

  test('drops user:password from URLs', () => {
    expect(normaliseResults([c('https://user:pw@site.example/p')], 5)[0]?.url).toBe(
      'https://site.example/p',
    );
  });

  test('domain is the host name without www. and without a trailing dot', () => {
    const out = normaliseResults(
      [
        c('https://www.Example.ORG./a'),
        c('http://docs.nats.io:8080/x'),
        c('https://wwwx.example/'),
      ],
      5,
    );
    expect(out.map((r) => r.domain)).toEqual(['example.org', 'docs.nats.io', 'wwwx.example']);
  });

  test('one result per page: fragment, scheme, www. and a trailing slash do not make a new one', () => {
    const out = normaliseResults(
      [
        c('https://example.org/page', { title: 'first' }),
        c('https://example.org/page#section'),
        c('http://example.org/page/'),
        c('https://www.example.org/page'),
        c('https://example.org/page?v=2', { title: 'other query' }),
      ],
      10,
    );
    expect(out.map((r) => r.title)).toEqual(['first', 'other query']);
  });

  test('at most `limit`, counted after dropping and deduplicating', () => {
    const out = normaliseResults(
      [
        c('ftp://x/1'),
        c('https://a.example/1'),
        c('https://a.example/1'),
        c('https://b.example/2'),
        c('https://c.example/3'),
      ],
      2,
    );
    expect(out.map((r) => r.url)).toEqual(['https://a.example/1', 'https://b.example/2']);
  });

  test('caps titles and snippets, strips their markup, and names the domain when a title is empty', () => {
    const [r] = normaliseResults(
      [
        c('https://example.org/', {
          title: `<b>${'t'.repeat(300)}</b>`,
          snippet: 's '.repeat(600),
        }),
      ],
      1,
    );
    expect(r!.title.length).toBeLessThanOrEqual(MAX_TITLE_LENGTH);
    expect(r!.title).not.toContain('<b>');
    expect(r!.snippet.length).toBeLessThanOrEqual(MAX_SNIPPET_LENGTH);
    expect(
      normaliseResults([c('https://www.example.org/', { title: ' <i></i> ' })], 1)[0]?.title,
    ).toBe('example.org');
  });

  test('published only when the date reads', () => {
    const out = normaliseResults(
      [
        c('https://a.example/', { published: '2024-01-02' }),
        c('https://b.example/', { published: 'yesterday' }),
      ],
      5,
    );
    expect(out[0]).toMatchObject({ published: '2024-01-02T00:00:00.000Z' });
    expect(out[1]).not.toHaveProperty('published');
  });
});
