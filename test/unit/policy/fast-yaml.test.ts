import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isMap, isScalar, parseDocument } from 'yaml';
import { parseSimpleYaml } from '../../../src/policy/fast-yaml.js';

/** What the full library makes of `text`, or null when it reports any error or warning. */
function reference(text: string): {
  value: unknown;
  offset: (list: string, i: number) => number | undefined;
  keyOffset: (key: string) => number | undefined;
} | null {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0 || doc.warnings.length > 0) return null;
  return {
    value: doc.toJS({ maxAliasCount: 100 }),
    offset: (list, i) =>
      (doc.getIn([list, i], true) as { range?: number[] } | undefined)?.range?.[0],
    keyOffset: (key) => {
      if (!isMap(doc.contents)) return undefined;
      const pair = doc.contents.items.find((p) => isScalar(p.key) && p.key.value === key);
      return pair && isScalar(pair.key) ? pair.key.range?.[0] : undefined;
    },
  };
}

/** The fast reader must agree with the library exactly, or decline. */
function agrees(text: string): boolean {
  const fast = parseSimpleYaml(text);
  if (fast === null) return false;
  const ref = reference(text);
  expect(ref, `the library rejects a text the fast reader accepted:\n${text}`).not.toBeNull();
  expect(fast.value).toStrictEqual(ref?.value);
  for (const [key, offset] of fast.itemOffsets) {
    const [list = '', index = ''] = key.split('\0');
    expect(offset).toBe(ref?.offset(list, Number(index)));
  }
  for (const [key, offset] of fast.keyOffsets) expect(offset).toBe(ref?.keyOffset(key));
  return true;
}

describe('fast YAML reader', () => {
  const files = [
    'policy/policy.yaml',
    ...readdirSync('policy/examples').map((f) => `policy/examples/${f}`),
  ];

  test.each(files)('reads %s on the fast path, exactly as the library does', (file) => {
    expect(agrees(readFileSync(file, 'utf8'))).toBe(true);
  });

  test.each([
    ['block map and list', 'a: 1\nb:\n  - x\n  - y: 2\n    z: [1, 2]\n'],
    ['a list at the same column as its key', 'a:\n- x\n- y\nb: 2\n'],
    ['extra spaces after a dash', 'a:\n  -   b: 1\n      c: 2\n'],
    ['comments everywhere', '# head\na: 1 # one\n  # odd indent\nb: # nested\n  - x # item\n'],
    [
      'core schema scalars',
      'a: [~, null, Null, true, False, 0o17, 0x1F, -12, +3, 1.5, .5, -.5, 1e3, .inf, -.Inf, .nan, yes, no, on, 1_000, 010]\n',
    ],
    [
      'plain scalars with inner colons, hashes and brackets',
      'a: http://x/y#z\nb: a [b] {c}\nc: "it\'s"\nd: it\'s\n',
    ],
    ['quoted scalars', "a: 'it''s'\nb: \"x: y#z\"\nc: ''\nd: \"\"\n"],
    ['flow maps and nested flows', 'a: {b: [1, {c: d}], e: {}}\nf: []\n'],
    ['globs', 'a: ["*.x", light.*, "?"]\n'],
    ['an empty value', 'a:\nb: 1\n'],
  ])('agrees with the library on %s', (_name, text) => {
    expect(agrees(text)).toBe(true);
  });

  test.each([
    ['an anchor and alias', 'a: &x 1\nb: *x\n'],
    ['a tag', 'a: !!str 1\n'],
    ['a block scalar', 'a: |\n  text\n'],
    ['a folded scalar', 'a: >\n  text\n'],
    ['a multi-line plain scalar', 'a: one\n  two\n'],
    ['a multi-line flow collection', 'a: [1,\n  2]\n'],
    ['a double-quoted escape', 'a: "x\\ny"\n'],
    ['a quoted key', '"a": 1\n'],
    ['a tab', 'a:\t1\n'],
    ['CRLF line ends', 'a: 1\r\nb: 2\r\n'],
    ['a byte order mark', '\ufeffa: 1\n'],
    ['a document marker', '---\na: 1\n'],
    ['a directive', '%YAML 1.2\n---\na: 1\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a key that resolves to a boolean', 'true: 1\n'],
    ['a __proto__ key', '__proto__: 1\n'],
    ['a very long key', `${'k'.repeat(200)}: 1\n`],
    ['a top-level list', '- a\n'],
    ['an indented top level', '  a: 1\n'],
    ['an empty document', '# nothing\n'],
    ['a nested mapping on one line', 'a: b: c\n'],
    ['a trailing comma', 'a: [1, 2,]\n'],
    ['an empty list item', 'a:\n  -\n'],
    ['a nested list on one line', 'a:\n  - - x\n'],
    ['a bad indent', 'a:\n  b: 1\n   c: 2\n'],
    ['a plain scalar starting with an indicator', 'a: @x\n'],
    ['a flow key without a space', 'a: {b:1}\n'],
    ['a comment inside a quoted string', 'a: "x #y"\n'],
  ])('declines %s', (_name, text) => {
    expect(parseSimpleYaml(text)).toBeNull();
  });

  test('agrees with the library on generated documents, or declines', () => {
    const plainScalar = fc.constantFrom(
      'light.kitchen',
      'a',
      'a b',
      '1',
      '-1',
      '0x1F',
      '0o17',
      '1e3',
      '.inf',
      '.NaN',
      '~',
      'null',
      'NULL',
      'True',
      'yes',
      'a:b',
      '[a, b]',
      '{a: 1}',
      '[]',
      '{}',
      "'it''s'",
      '"*.x"',
      '1_000',
      '+1',
      '.5',
      '-.5',
      '010',
      '0.10',
    );
    const trickyScalar = fc.constantFrom(
      'a: b',
      'a #b',
      'a#b',
      '#x',
      "it's",
      '"q"',
      "'s'",
      "'it''s'",
      '"a\\nb"',
      '&a x',
      '*a',
      '!t x',
      '|',
      '>',
      '@x',
      '`x',
      '-x',
      '- x',
      '?x',
      '[a, b]',
      '{a: 1}',
      '[a,]',
      '[a, [b, c]]',
      '{a: [1, 2], b: {c: d}}',
      '[]',
      '{}',
      'a [b]',
      'x:',
      '"a" b',
      '[a] b',
      "'a' #c",
      'a  # c',
      '%x',
    );
    const scalar = fc.oneof(
      { weight: 5, arbitrary: plainScalar },
      { weight: 1, arbitrary: trickyScalar },
    );
    const key = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.constantFrom('a', 'b', 'service', 'target', 'entity_id', 'k1', 'y', 'on'),
      },
      { weight: 1, arbitrary: fc.constantFrom('true', 'null', 'a b', '"q"', 'a:b', '1') },
    );
    const tree: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        scalar,
        fc.array(tie('node'), { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(key, tie('node')), { minLength: 1, maxLength: 3 }).map((e) => new Map(e)),
      ),
    })).node;
    const style = fc.record({
      indent: fc.constantFrom(2, 4),
      compact: fc.boolean(),
      dashPad: fc.constantFrom(1, 2),
      comments: fc.boolean(),
    });
    const corruption = fc.oneof(
      { weight: 3, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.nat(400) },
    );
    const doc = fc.tuple(
      fc.array(fc.tuple(key, tree), { minLength: 1, maxLength: 4 }),
      style,
      corruption,
    );
    let fast = 0;
    fc.assert(
      fc.property(doc, ([entries, s, corruptAt]) => {
        let text = render(new Map(entries), 0, s).join('\n') + '\n';
        if (corruptAt !== null) {
          const at = corruptAt % text.length;
          text =
            text.slice(0, at) +
            (corruptAt % 3 === 0 ? ' ' : corruptAt % 3 === 1 ? '\n' : '') +
            text.slice(at + (corruptAt % 3 === 2 ? 1 : 0));
        }
        if (agrees(text)) fast++;
      }),
      { numRuns: 3000 },
    );
    expect(fast).toBeGreaterThan(300);
  });
});

interface Style {
  indent: number;
  compact: boolean;
  dashPad: number;
  comments: boolean;
}

/** Renders a tree of Maps, arrays and raw scalar strings as block YAML lines. */
function render(node: unknown, at: number, s: Style): string[] {
  const pad = ' '.repeat(at);
  const lines: string[] = [];
  if (node instanceof Map) {
    for (const [k, v] of node as Map<string, unknown>) {
      if (typeof v === 'string') lines.push(`${pad}${k}: ${v}${s.comments ? ' # c' : ''}`);
      else {
        lines.push(`${pad}${k}:`);
        if (s.comments) lines.push(`${pad}   # comment`);
        lines.push(...render(v, Array.isArray(v) && s.compact ? at : at + s.indent, s));
      }
    }
    return lines;
  }
  for (const item of node as unknown[]) {
    const dash = `${pad}-${' '.repeat(s.dashPad)}`;
    if (typeof item === 'string') lines.push(`${dash}${item}`);
    else if (item instanceof Map) {
      const inner = render(item, at + 1 + s.dashPad, s);
      lines.push(`${dash}${(inner[0] ?? '').trimStart()}`, ...inner.slice(1));
    } else lines.push(`${dash}`, ...render(item, at + s.indent, s));
  }
  return lines;
}
