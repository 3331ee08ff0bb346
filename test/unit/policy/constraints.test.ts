import { describe, expect, test } from 'vitest';
import { engineOf, tool } from './helpers.js';

/**
 * Each operator in both modes. Allow rules must prove a value is inside (strict); deny rules
 * match unless the value is provably outside (lenient: coerced and case-insensitive).
 */
function judge(constraint: string, value: unknown): { allowed: boolean; denyMatched: boolean } {
  const allow = engineOf(
    `allowed_tools:\n  - tool: t\n    input:\n      v: ${constraint}\n`,
  ).engine;
  const deny = engineOf(
    `allowed_tools: [t]\ndenied_tools:\n  - tool: t\n    input:\n      v: ${constraint}\n`,
  ).engine;
  const input = value === ABSENT ? {} : { v: value };
  return {
    allowed: allow.evaluate(tool('t', input)).allowed,
    denyMatched: !deny.evaluate(tool('t', input)).allowed,
  };
}

const ABSENT = Symbol('absent');

describe('constraint operators', () => {
  test.each<[string, string, unknown, boolean, boolean]>([
    // [operator, constraint, value, allow rule accepts, deny rule matches]
    ['scalar shorthand', 'heat', 'heat', true, true],
    ['scalar shorthand', 'heat', 'cool', false, false],
    ['scalar shorthand (case)', 'heat', 'HEAT ', false, true],
    ['equals number', '{equals: 3}', 3, true, true],
    ['equals number vs numeric string', '{equals: 3}', '3.0', false, true],
    ['equals boolean', '{equals: true}', true, true, true],
    ['equals boolean vs number', '{equals: true}', 1, false, true],
    ['list shorthand (enum)', '[red, blue]', 'blue', true, true],
    ['list shorthand (enum)', '[red, blue]', 'green', false, false],
    ['enum', '{enum: [1, 2]}', 2, true, true],
    ['enum vs string', '{enum: [1, 2]}', '2', false, true],
    ['glob', '{glob: "light.*"}', 'light.kitchen', true, true],
    ['glob', '{glob: "light.*"}', 'switch.kitchen', false, false],
    ['glob (case)', '{glob: "light.*"}', 'LIGHT.kitchen', false, true],
    ['glob list', '{glob: ["a*", "b?"]}', 'bx', true, true],
    ['glob on a number', '{glob: "1*"}', 12, false, true],
    ['pattern is anchored', '{pattern: "ab"}', 'xaby', false, false],
    ['pattern', '{pattern: "[a-z]+"}', 'abc', true, true],
    ['pattern (case)', '{pattern: "[a-z]+"}', 'ABC', false, true],
    ['min', '{min: 5}', 5, true, true],
    ['min', '{min: 5}', 4, false, false],
    ['max', '{max: 5}', 6, false, false],
    ['max vs numeric string', '{max: 5}', '6', false, false],
    ['min vs numeric string', '{min: 5}', ' 6 ', false, true],
    ['min vs underscore digits', '{min: 500}', '1_000', false, true],
    ['min vs inf', '{min: 500}', 'inf', false, true],
    ['min vs a boolean', '{min: 1}', true, false, true],
    ['min vs garbage', '{min: 5}', 'lots', false, true],
    ['min vs NaN-like object', '{min: 5}', { x: 1 }, false, true],
    ['min_length', '{min_length: 2}', 'ab', true, true],
    ['min_length', '{min_length: 2}', 'a', false, false],
    ['max_length', '{max_length: 2}', 'abc', false, false],
    ['max_length vs number', '{max_length: 2}', 123, false, false],
    ['type string', '{type: string}', 'x', true, true],
    ['type string vs number', '{type: string}', 1, false, true],
    ['type number', '{type: number}', 1.5, true, true],
    ['type number vs numeric string', '{type: number}', '1.5', false, true],
    ['type number vs word', '{type: number}', 'one', false, false],
    ['type integer', '{type: integer}', 2, true, true],
    ['type integer vs fraction', '{type: integer}', 2.5, false, false],
    ['type boolean', '{type: boolean}', false, true, true],
    ['type boolean vs "on"', '{type: boolean}', 'on', false, true],
    ['type array', '{type: array}', [1], true, true],
    ['type array vs scalar', '{type: array}', 1, false, false],
    ['type object', '{type: object}', { a: 1 }, true, true],
    ['type object vs list', '{type: object}', [1], false, false],
    ['list value: every item must pass an allow', '{enum: [a, b]}', ['a', 'c'], false, true],
    ['list value: any item matches a deny', '{enum: [a, b]}', ['c', 'B'], false, true],
    ['list value: all items pass', '{enum: [a, b]}', ['a', 'b'], true, true],
    ['max_items', '{max_items: 2}', [1, 2, 3], false, false],
    ['max_items', '{max_items: 2}', [1, 2], true, true],
    ['object where a scalar is expected', '{equals: a}', { a: 1 }, false, true],
    ['fields', '{fields: {mode: read}}', { mode: 'read' }, true, true],
    ['fields mismatch', '{fields: {mode: read}}', { mode: 'write' }, false, false],
    ['fields on a scalar', '{fields: {mode: read}}', 'read', false, false],
    ['any value: {}', '{}', { deep: [1] }, true, true],
    ['absent key passes an allow, never matches a deny', '{equals: a}', ABSENT, true, false],
    ['required: absent key fails', '{required: true}', ABSENT, false, false],
    ['forbidden: present key fails', '{forbidden: true}', 'x', false, true],
    ['forbidden: absent key passes', '{forbidden: true}', ABSENT, true, false],
  ])('%s: %s against %j', (_op, constraint, value, allowed, denyMatched) => {
    if (constraint.includes('required') || constraint.includes('forbidden')) {
      const allow = engineOf(
        `allowed_tools:\n  - tool: t\n    input:\n      v: ${constraint}\n`,
      ).engine;
      expect(allow.evaluate(tool('t', value === ABSENT ? {} : { v: value })).allowed).toBe(allowed);
      return;
    }
    expect(judge(constraint, value)).toEqual({ allowed, denyMatched });
  });
});
