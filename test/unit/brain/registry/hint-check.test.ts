import { describe, expect, test } from 'vitest';
import {
  planHintChecks,
  tallyHintChecks,
  type CheckResult,
} from '../../../../src/brain/registry/hint-check.js';
import { instance } from './world.js';

const v1 = instance('A1', { version: '1.0.0' });
const v2 = instance('A1', { version: '2.0.0' });

describe('planHintChecks', () => {
  test.each([
    ['a new instance', [v1], undefined, 'INFO'],
    ['a listed instance repeating its spec', [v1], v1.specSha256, 'PING'],
    ['a listed instance claiming another spec', [v2], v1.specSha256, 'INFO'],
    ['a listed instance claimed with two specs', [v1, v2], v1.specSha256, 'INFO'],
  ])('%s earns %s', (_what, hints, known, verb) => {
    const plan = planHintChecks(hints, () => known, 10);
    expect(plan.checks.map((c) => [c.verb, c.id, c.claims.size])).toEqual([
      [verb, 'A1', hints.length],
    ]);
  });

  test('claims past the cap are counted, not asked', () => {
    const b = instance('B1');
    const plan = planHintChecks([v1, v2, b, v1], () => undefined, 1);
    expect(plan.checks.map((c) => c.id)).toEqual(['A1']);
    expect(plan.skipped).toBe(1);
    expect(planHintChecks([b, v1, v2], () => undefined, 1).skipped).toBe(2);
  });

  test('listed instances are pinged past the cap; only new ones wait for a later sweep', () => {
    const listed = ['L1', 'L2', 'L3'].map((id) => instance(id));
    const fresh = [instance('N1'), instance('N2')];
    const known = new Map(listed.map((i) => [i.id, i.specSha256]));
    const plan = planHintChecks([...listed, ...fresh], (_t, id) => known.get(id), 1);
    expect(plan.checks.map((c) => [c.verb, c.id])).toEqual([
      ['PING', 'L1'],
      ['PING', 'L2'],
      ['PING', 'L3'],
      ['INFO', 'N1'],
    ]);
    expect(plan.skipped).toBe(1);
  });
});

describe('tallyHintChecks', () => {
  test('counts every claim its instance did not confirm', () => {
    const b = instance('B1');
    const plan = planHintChecks([v1, v2, b], () => undefined, 10);
    const [a1, b1] = plan.checks;
    const results: CheckResult[] = [
      { verb: 'INFO', check: a1!, confirmation: { kind: 'confirmed', instance: v1 } },
      { verb: 'INFO', check: b1!, confirmation: { kind: 'unconfirmed', reason: 'silent' } },
    ];
    expect(tallyHintChecks({ ...plan, skipped: 3 }, results)).toEqual({
      confirmed: [v1],
      alive: [],
      unconfirmed: 3 + 1 + 1, // skipped, A1's 2.0.0 claim, B1
      reasons: ['lock/B1: silent'],
    });
  });

  test('a silent PING counts once, an answered one marks the instance alive', () => {
    const plan = planHintChecks([v1, instance('B1')], () => v1.specSha256, 10);
    const [a1, b1] = plan.checks;
    const tally = tallyHintChecks(plan, [
      { verb: 'PING', check: a1!, alive: true },
      { verb: 'PING', check: b1!, alive: false },
    ]);
    expect(tally).toMatchObject({ alive: [{ tool: 'lock', id: 'A1' }], unconfirmed: 1 });
  });
});
