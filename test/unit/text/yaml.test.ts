import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  formatYamlIssue,
  MAX_YAML_BYTES,
  readYaml,
  yamlFlowText,
} from '../../../src/text/index.js';
import { MAX_YAML_ALIAS_NODES } from '../../../src/text/bounds.js';

// The one YAML reader (src/text/yaml.ts): values, positions, bounds and the issue shape that
// the policy, cases, intents, config and tokens readers all report.

const TEXT = [
  'version: 1', // 1
  'allowed_services:', // 2
  '  - service: light.turn_on', // 3
  '    target:', // 4
  '      entity_id: [light.kitchen, "light.hall_*"]', // 5
  'allowed_tools:', // 6
  '  - tool: calculator', // 7
  "  - {tool: 'web_search', input: {q: 1}}", // 8
  'anchors:', // 9
  '  - &lights [light.a, light.b]', // 10
  '  - *lights', // 11
  '',
].join('\n');

describe('readYaml: value and positions', () => {
  const doc = readYaml(TEXT);

  test('the document is plain data with no issues', () => {
    expect(doc.issues).toEqual([]);
    expect(doc.value).toMatchObject({
      version: 1,
      allowed_services: [
        { service: 'light.turn_on', target: { entity_id: ['light.kitchen', 'light.hall_*'] } },
      ],
      allowed_tools: [{ tool: 'calculator' }, { tool: 'web_search', input: { q: 1 } }],
      anchors: [
        ['light.a', 'light.b'],
        ['light.a', 'light.b'],
      ],
    });
  });

  test.each([
    ['the whole document', [], undefined, 1, 1],
    ['a block map value', ['version'], undefined, 1, 10],
    ['a key', [], 'allowed_tools', 6, 1],
    ['a list item (a rule)', ['allowed_services', 0], undefined, 3, 5],
    ['a nested key', ['allowed_services', 0, 'target'], 'entity_id', 5, 7],
    ['a flow list item', ['allowed_services', 0, 'target', 'entity_id', 0], undefined, 5, 19],
    [
      'a quoted scalar (at its quote)',
      ['allowed_services', 0, 'target', 'entity_id', 1],
      undefined,
      5,
      34,
    ],
    ['a flow map', ['allowed_tools', 1], undefined, 8, 5],
    ['a single-quoted value', ['allowed_tools', 1, 'tool'], undefined, 8, 12],
    ['a key in a flow map', ['allowed_tools', 1, 'input'], 'q', 8, 34],
    ['an alias (at its *)', ['anchors', 1], undefined, 11, 5],
    ['a path below an alias: the alias', ['anchors', 1, 0], undefined, 11, 5],
    ['a missing key: the map that should hold it', ['allowed_tools', 0, 'input'], undefined, 7, 5],
    ['a missing index: the list', ['allowed_tools', 7], undefined, 7, 3],
  ] as const)('locates %s', (_what, path, key, line, column) => {
    expect(doc.locate(path, key)).toEqual({ line, column });
  });

  test('issueAt names the path, with the key when the issue is about a key', () => {
    expect(doc.issueAt(['allowed_tools', 0], 'bad')).toEqual({
      path: 'allowed_tools[0]',
      line: 7,
      column: 5,
      message: 'bad',
    });
    expect(doc.issueAt(['allowed_services', 0, 'target'], 'unknown', 'entity_id')).toEqual({
      path: 'allowed_services[0].target.entity_id',
      line: 5,
      column: 7,
      message: 'unknown',
    });
  });

  test('one issue shape, file:line:column: path: message', () => {
    const issue = { path: 'a.b[0]', line: 3, column: 7, message: 'no' };
    expect(formatYamlIssue('/etc/caesar/policy.yaml', issue)).toBe(
      '/etc/caesar/policy.yaml:3:7: a.b[0]: no',
    );
    expect(formatYamlIssue('f.yaml', { ...issue, path: '' })).toBe('f.yaml:3:7: no');
  });
});

describe('readYaml: the YAML 1.2 core schema', () => {
  test.each([
    ['', null],
    ['# only a comment\n', null],
    [
      'a: on\nb: yes\nc: 0x1F\nd: ~\ne: 2026-01-01\nf: 1e3\n',
      { a: 'on', b: 'yes', c: 31, d: null, e: '2026-01-01', f: 1000 },
    ],
    ['- 1\n- "2"\n', [1, '2']],
    ['<<: {a: 1}\n', { '<<': { a: 1 } }],
  ])('%j reads as %j', (text, value) => {
    const doc = readYaml(text);
    expect(doc.issues).toEqual([]);
    expect(doc.value).toEqual(value);
  });

  test('a __proto__ key is an own property and touches no prototype', () => {
    const doc = readYaml('__proto__: {polluted: true}\na: 1\n');
    const value = doc.value as Record<string, unknown>;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });
});

describe('readYaml: problems are issues with a position, never exceptions', () => {
  test.each([
    ['a duplicate key', 'a: 1\nb: 2\na: 3\n', 3, 1, 'YAML: duplicated mapping key'],
    ['an unknown tag', 'a: !shell ls\n', 1, 4, 'YAML: unknown tag !<!shell>'],
    ['an unclosed flow list', 'a: [1, 2\nb: 3\n', 2, 1, /^YAML: /],
    [
      'two documents',
      'a: 1\n---\nb: 2\n',
      3,
      1,
      'YAML: the text holds more than one document (a second starts here): keep one',
    ],
    ['an alias of no anchor', 'a: *nowhere\n', 1, 4, 'YAML: unidentified alias "nowhere"'],
  ])('%s', (_what, text, line, column, message) => {
    const doc = readYaml(text);
    expect(doc.value).toBeUndefined();
    expect(doc.issues).toEqual([
      {
        path: '',
        line,
        column,
        message: typeof message === 'string' ? message : expect.stringMatching(message),
      },
    ]);
  });

  test(`a text over MAX_YAML_BYTES (${MAX_YAML_BYTES}) is refused before parsing`, () => {
    const text = `a: "${'x'.repeat(MAX_YAML_BYTES)}"\n`;
    expect(readYaml(text).issues).toEqual([
      {
        path: '',
        line: 1,
        column: 1,
        message: `YAML: the text is ${MAX_YAML_BYTES + 6} bytes, over the limit of ${MAX_YAML_BYTES} bytes`,
      },
    ]);
    expect(readYaml('a: 1234\n', { maxBytes: 7 }).issues[0]?.message).toMatch(
      /over the limit of 7/,
    );
    expect(readYaml('a: 123\n', { maxBytes: 7 }).issues).toEqual([]);
  });

  test('maxAliases: 0 refuses any alias where it stands', () => {
    expect(readYaml('a: &x 1\nb: *x\n', { maxAliases: 0 }).issues).toEqual([
      {
        path: '',
        line: 2,
        column: 4,
        message: 'YAML: YAML aliases (*x) are not allowed in this file',
      },
    ]);
  });

  test(`aliases may add at most ${MAX_YAML_ALIAS_NODES} nodes: a "billion laughs" is refused`, () => {
    // 8 levels of 9 aliases each (72 uses, under the 100-use bound) would expand to 10^8 nodes.
    const lines = ['l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i <= 8; i++) {
      lines.push(`l${i}: &l${i} [${Array.from({ length: 9 }, () => `*l${i - 1}`).join(', ')}]`);
    }
    const doc = readYaml(`${lines.join('\n')}\n`);
    expect(doc.value).toBeUndefined();
    expect(doc.issues).toHaveLength(1);
    expect(doc.issues[0]?.message).toMatch(
      new RegExp(
        `^YAML: YAML aliases expand too far: \\*l\\d brings .* over ${MAX_YAML_ALIAS_NODES}$`,
      ),
    );
  });

  test('an anchor used as often as a policy would (20 uses of a 50-item list) reads', () => {
    const items = Array.from({ length: 50 }, (_, i) => `light.l${i}`).join(', ');
    const uses = Array.from({ length: 20 }, (_, i) => `r${i}: *all`).join('\n');
    const doc = readYaml(`all: &all [${items}]\n${uses}\n`);
    expect(doc.issues).toEqual([]);
    expect((doc.value as Record<string, string[]>).r19).toHaveLength(50);
  });

  const FRAGMENTS = [
    ': ',
    '- ',
    '\n',
    '\n  ',
    '[',
    ']',
    '{',
    '}',
    ',',
    '&a ',
    '*a',
    '? ',
    '---\n',
    '!!str ',
    '"',
    "'",
    '#',
    'k',
    'v',
    '|\n',
    '\t',
    '%YAML 1.2\n',
  ];
  test('any text reads to a value or to issues with a position inside the text', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        const doc = readYaml(text);
        const lineCount = text.split('\n').length;
        for (const issue of doc.issues) {
          expect(issue.line).toBeGreaterThanOrEqual(1);
          expect(issue.line).toBeLessThanOrEqual(lineCount);
          expect(issue.message).toMatch(/^YAML: /);
        }
        expect(doc.issues.length > 0 ? doc.value === undefined : doc.value !== undefined).toBe(
          true,
        );
        const at = doc.locate(['a', 0, 'b']);
        expect(at.line).toBeLessThanOrEqual(lineCount);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('yamlFlowText', () => {
  test.each([
    ['5s', '5s'],
    ['', '""'],
    ['0.2', '"0.2"'],
    [['a', 'b'], '[a, b]'],
    [8420, '8420'],
    [true, 'true'],
    ['*', '"*"'],
  ])('%j is written %s, and reads back the same', (value, text) => {
    expect(yamlFlowText(value)).toBe(text);
    expect(readYaml(`k: ${text}\n`).value).toEqual({ k: value });
  });
});
