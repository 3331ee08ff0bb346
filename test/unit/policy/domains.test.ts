import { describe, expect, test } from 'vitest';
import { compileDomainAllowlist } from '../../../src/policy/index.js';

describe('domain allowlist (web_search result filtering): an allowed domain or a subdomain of one', () => {
  const allowed = compileDomainAllowlist(['en.wikipedia.org', '*.python.org', 'Example.COM.']);

  test.each([
    ['https://en.wikipedia.org/wiki/Rome', true],
    ['http://en.wikipedia.org', true],
    ['https://EN.Wikipedia.org./x', true],
    ['https://de.wikipedia.org/wiki/Rom', false],
    ['https://m.en.wikipedia.org/wiki/Rome', true],
    ['https://a.b.en.wikipedia.org/', true],
    ['https://xen.wikipedia.org/', false],
    ['https://wikipedia.org', false],
    ['https://en.wikipedia.org.evil.com/', false],
    ['https://evil.com/?u=https://en.wikipedia.org', false],
    ['https://en.wikipedia.org@evil.com/', false],
    ['https://docs.python.org/3/', true],
    ['https://a.b.python.org/', true],
    ['https://python.org/', false],
    ['https://evilpython.org/', false],
    ['https://example.com/', true],
    ['https://www.example.com:8443/a?b#c', true],
    ['https://example.com.evil.org/', false],
    ['ftp://en.wikipedia.org/', false],
    ['javascript:alert(1)', false],
    ['not a url', false],
    ['', false],
  ])('%s -> %s', (url, expected) => {
    expect(allowed(url)).toBe(expected);
  });
});
