import { describe, expect, test } from 'vitest';
import { clampPayload } from '../../../src/audit/clamp.js';
import { redactText } from '../../../src/text/index.js';
import { ClampLimitsSchema } from '../../../src/audit/limits.js';
import { capText } from '../../../src/brain/conversations/truncate.js';
import { PLAIN_LINES, SECRET_LINES } from '../../fixtures/secrets-corpus.js';

const limits = ClampLimitsSchema.parse({});

describe('secrets corpus', () => {
  test.each(SECRET_LINES.map((l) => [l.name, l] as const))('%s is redacted', (_name, line) => {
    const out = redactText(line.text);
    for (const secret of line.secrets) expect(out).not.toContain(secret);
    for (const word of line.kept) expect(out).toContain(word);
    expect(out).toContain('[redacted');
    // both stores apply the same rules
    expect(capText(line.text)).toBe(out);
    expect(clampPayload({ text: line.text }, limits).json).toBe(JSON.stringify({ text: out }));
  });

  test.each(PLAIN_LINES)('%j is left alone', (text) => {
    expect(redactText(text)).toBe(text);
    expect(capText(text)).toBe(text);
  });
});

describe('redaction runs in linear time', () => {
  // Each of these took seconds to minutes at 8-20 KB with the earlier rules (they backtracked
  // over repeated prefixes). At 64 KB a linear pass takes milliseconds; the bound is loose on
  // purpose, so a loaded machine does not fail it while a quadratic rule still does.
  const n = 64 * 1024;
  test.each([
    ['repeated keyword', 'passwordx'.repeat(n / 9)],
    ['keyword then a long word', `password${'a'.repeat(n)}`],
    ['long word then a keyword', `${'a'.repeat(n)} token`],
    ['repeated JWT prefix', 'eyJa-'.repeat(n / 5)],
    ['repeated URL scheme letters', 'a.'.repeat(n / 2)],
    ['repeated AWS key ids', 'AKIAIOSFODNN7EXAMPLE '.repeat(n / 21)],
    ['repeated phrase', 'my password is '.repeat(n / 15)],
  ])('%s (64 KiB) is redacted in well under a second', (_name, text) => {
    const started = performance.now();
    redactText(text);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
