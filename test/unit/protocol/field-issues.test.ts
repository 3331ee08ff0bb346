import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  describeFirstIssue,
  fieldIssuesOf,
  firstFieldIssue,
  forwardIssues,
  MAX_FIELD_ISSUES,
  placeZodFields,
  summariseFieldIssues,
  unknownKeysWords,
  zodFields,
} from '../../../src/protocol/index.js';

// Issue 30: the one reading of zod issues (ADR 0079). Every caller (HTTP bodies, the brain's
// and the worker's input checks, defineTool, the module loader, the runtime file, the
// supervisor's messages) gets the same paths and words from it.

const Shape = z.strictObject({
  name: z.string(),
  items: z.array(z.strictObject({ id: z.string() })),
});

const errorOf = (schema: z.ZodType, value: unknown): z.ZodError => {
  const r = schema.safeParse(value);
  if (r.success) throw new Error('expected a refusal');
  return r.error;
};

describe('fieldIssuesOf', () => {
  test('paths read a.b[1].c, the value itself is (root), zod\'s "Invalid input: " is dropped', () => {
    expect(fieldIssuesOf(errorOf(Shape, { name: 'a', items: [{ id: 'x' }, { id: 2 }] }))).toEqual([
      { path: 'items[1].id', message: 'expected string, received number' },
    ]);
    expect(fieldIssuesOf(errorOf(Shape, 'text'))).toEqual([
      { path: '(root)', message: 'expected object, received string' },
    ]);
  });

  test('an unknown key is named at its own path, one issue per key', () => {
    const issues = fieldIssuesOf(errorOf(Shape, { name: 'a', items: [{ id: 'x', b: 1 }], c: 2 }));
    expect(issues).toEqual([
      { path: 'items[0].b', message: "unknown field 'b'" },
      { path: 'c', message: "unknown field 'c'" },
    ]);
  });

  test('`at` goes before each path', () => {
    expect(fieldIssuesOf(errorOf(z.string(), 1), ['tools', 'x'])).toEqual([
      { path: 'tools.x', message: 'expected string, received number' },
    ]);
  });

  test('at most MAX_FIELD_ISSUES, however many keys one issue names', () => {
    const many = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i]));
    expect(fieldIssuesOf(errorOf(z.strictObject({}), many))).toHaveLength(MAX_FIELD_ISSUES);
    const list = z.array(z.string());
    expect(
      fieldIssuesOf(
        errorOf(
          list,
          Array.from({ length: 500 }, () => 1),
        ),
      ),
    ).toHaveLength(MAX_FIELD_ISSUES);
  });

  test('summariseFieldIssues joins them on one line', () => {
    expect(
      summariseFieldIssues([
        { path: 'a', message: 'm' },
        { path: '', message: 'n' },
      ]),
    ).toBe('a: m; (input): n');
  });
});

describe('forwardIssues', () => {
  test('a nested parse re-adds its issues under a path, keeping their codes', () => {
    const Inner = z.strictObject({ n: z.number() });
    const Outer = z.unknown().transform((v, ctx) => {
      const r = Inner.safeParse(v);
      if (r.success) return r.data;
      forwardIssues(ctx, r.error, ['per']);
      return z.NEVER;
    });
    const issues = errorOf(Outer, { n: 'x', extra: 1 }).issues;
    expect(issues.map((i) => [i.code, i.path])).toEqual([
      ['invalid_type', ['per', 'n']],
      ['unrecognized_keys', ['per']],
    ]);
    expect(fieldIssuesOf(errorOf(Outer, { n: 1, extra: 1 }))).toEqual([
      { path: 'per.extra', message: "unknown field 'extra'" },
    ]);
  });

  test('`message` rewords each issue', () => {
    const Outer = z.unknown().transform((v, ctx) => {
      const r = z.number().safeParse(v);
      if (r.success) return r.data;
      forwardIssues(ctx, r.error, [], (i) => `${i.message}; or a word`);
      return z.NEVER;
    });
    expect(errorOf(Outer, 'x').issues[0]?.message).toMatch(/; or a word$/);
  });
});

describe('zodFields', () => {
  test('a record key the schema refuses is about the key', () => {
    const [f] = zodFields(errorOf(z.record(z.string().regex(/^[a-z]+$/), z.number()), { A1: 1 }));
    expect(f).toMatchObject({ path: ['A1'], isKey: true });
    expect(f?.message).toMatch(/^invalid key 'A1': /);
  });

  test('a schema that words its unknown keys keeps its words, at the object', () => {
    const Section = z.strictObject({ a: z.string() }, { error: unknownKeysWords('demo', ['a']) });
    expect(fieldIssuesOf(errorOf(Section, { a: 'x', b: 1 }), ['tools', 'demo'])).toEqual([
      { path: 'tools.demo', message: "unknown key 'b'; demo takes a" },
    ]);
  });

  test('unionBranch reads a union by its first failing branch, at the union', () => {
    const U = z.object({ rule: z.union([z.strictObject({ a: z.number() }), z.string()]) });
    const error = errorOf(U, { rule: 5 });
    expect(zodFields(error).map((f) => f.message)).toEqual(['Invalid input']);
    expect(zodFields(error, { unionBranch: true })).toMatchObject([
      { path: ['rule'], message: 'expected object, received number' },
    ]);
  });
});

describe('the first issue', () => {
  test('path: message, the whole value named by the caller', () => {
    expect(describeFirstIssue(errorOf(Shape, { name: 'a', items: [{ id: 1 }] }))).toBe(
      'items[0].id: expected string, received number',
    );
    expect(describeFirstIssue(errorOf(z.string(), 1), 'body')).toBe(
      'body: expected string, received number',
    );
    expect(firstFieldIssue(errorOf(z.string(), 1))).toEqual({
      path: '',
      message: 'expected string, received number',
    });
  });
});

describe('placeZodFields', () => {
  test('a field about a key points at the key; words reword it', () => {
    const at = (path: readonly PropertyKey[], message: string, key?: string) => ({
      path: path.join('/'),
      key,
      message,
    });
    const error = errorOf(Shape, { name: 1, items: [], extra: true });
    expect(
      placeZodFields(at, error, {
        at: ['doc'],
        words: (f) => (f.unknownKey ? `unknown key '${f.unknownKey}'` : f.message),
      }),
    ).toEqual([
      { path: 'doc/name', key: undefined, message: 'expected string, received number' },
      { path: 'doc', key: 'extra', message: "unknown key 'extra'" },
    ]);
  });
});
