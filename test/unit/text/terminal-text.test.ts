import { describe, expect, test } from 'vitest';
import { terminalLine, terminalText } from '../../../src/text/terminal-text.js';

/** Everything a terminal would act on (the line feed checked apart). */
// eslint-disable-next-line no-control-regex -- the test looks for control characters
const ACTED_ON = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

describe('terminal-safe text', () => {
  test.each([
    ['plain text', 'calculator → ok (3 ms)', 'calculator → ok (3 ms)'],
    ['OSC title, ended by BEL', '\u001b]0;pwned\u0007', '\\u001b]0;pwned\\u0007'],
    ['CSI colour', '\u001b[31mred\u001b[0m', '\\u001b[31mred\\u001b[0m'],
    [
      'NUL and the rest of C0',
      '\u0000\u0001\u0008\u000b\u000c\u001f',
      '\\u0000\\u0001\\u0008\\u000b\\u000c\\u001f',
    ],
    ['DEL', 'a\u007fb', 'a\\u007fb'],
    ['C1: NEL, CSI, OSC, ST', '\u0085\u009b2J\u009d\u009c', '\\u0085\\u009b2J\\u009d\\u009c'],
    [
      'bidi overrides',
      '\u202aa\u202bb\u202cc\u202dd\u202ee',
      '\\u202aa\\u202bb\\u202cc\\u202dd\\u202ee',
    ],
    ['bidi isolates', '\u2066a\u2067b\u2068c\u2069', '\\u2066a\\u2067b\\u2068c\\u2069'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['a line feed: a forged line', 'ok\nforged: ok', 'ok\\nforged: ok'],
    ['tab and carriage return', 'a\tb\rc\r\nd', 'a\\tb\\rc\\r\\nd'],
    ['text past the ranges stays', 'é ü 中 😀 \u00a0 \u200b', 'é ü 中 😀 \u00a0 \u200b'],
    ['a literal backslash stays', 'C:\\tmp \\u001b', 'C:\\tmp \\u001b'],
    ['empty', '', ''],
  ])('one line: %s', (_name, input, shown) => {
    expect(terminalLine(input)).toBe(shown);
    expect(terminalLine(input)).not.toMatch(ACTED_ON);
    expect(terminalLine(input)).not.toContain('\n');
  });

  test.each([
    ['a reply over lines keeps them', 'first\nsecond\n', 'first\nsecond\n'],
    ['CRLF is a line break', 'first\r\nsecond', 'first\nsecond'],
    ['a lone CR would overwrite the line', 'safe\rforged', 'safe\\rforged'],
    ['tabs are escaped', 'a\tb', 'a\\tb'],
    ['ESC and BEL inside a body', 'hi \u001b]0;x\u0007\nthere', 'hi \\u001b]0;x\\u0007\nthere'],
    ['C1 and bidi inside a body', '\u009b2J\n\u202eevil', '\\u009b2J\n\\u202eevil'],
  ])('body: %s', (_name, input, shown) => {
    expect(terminalText(input)).toBe(shown);
    expect(terminalText(input)).not.toMatch(ACTED_ON);
  });

  test('a JSON document stays JSON that reads back as the same value', () => {
    const value = {
      tool: '\u001b]0;t\u0007',
      c1: '\u0085\u009b\u009f',
      bidi: '\u202e\u2066',
      lines: 'a\u2028b\nc',
      del: '\u007f',
    };
    for (const text of [JSON.stringify(value), JSON.stringify(value, null, 2)]) {
      // JSON.stringify escapes C0 only: DEL, C1, bidi and the separators are left raw
      expect(text).toMatch(ACTED_ON);
      const safe = terminalText(text);
      expect(safe).not.toMatch(ACTED_ON);
      expect(JSON.parse(safe)).toEqual(value);
      expect(JSON.parse(terminalLine(JSON.stringify(value)))).toEqual(value);
    }
  });
});
