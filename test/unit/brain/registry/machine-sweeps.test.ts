import { describe, expect, test } from 'vitest';
import {
  MAX_CONFIRMS_PER_SWEEP,
  type RegistryMachine,
} from '../../../../src/brain/registry/machine.js';
import { admit, instance, listed, machine, reports, sweep, types, World } from './world.js';

const b1 = instance('B1');

describe('misses', () => {
  test.each([1, 2, 3])(
    'with maxMissedSweeps %i, a silent instance goes at that many missed sweeps, not before',
    (max) => {
      const m = machine(max);
      admit(m, instance('A1'), 0);
      const silent = new World();
      for (let n = 1; n < max; n++) {
        expect(types(sweep(m, silent, { start: n * 1000 }).outputs)).toEqual(['sweep']);
        expect(listed(m)).toEqual(['A1']);
      }
      const last = sweep(m, silent, { start: max * 1000 });
      expect(reports(last.outputs, 'instance_removed').map((r) => r.event)).toEqual([
        {
          tool: 'lock',
          instance: expect.objectContaining({ id: 'A1' }),
          reason: 'missed_sweeps',
          toolRemoved: true,
          sweep: last.event.seq,
        },
      ]);
      expect(m.tool('lock')).toBeUndefined();
    },
  );

  test('an answer to its own PING between misses starts the count again', () => {
    const m = machine(2);
    const a = instance('A1');
    admit(m, a, 0);
    const world = new World();

    sweep(m, world, { start: 1000 });
    const answered = sweep(m, world.up(a), { start: 2000 });
    expect(answered.plan.checks.map((c) => c.verb)).toEqual(['PING']);
    sweep(m, world.down(a), { start: 3000 });
    expect(listed(m)).toEqual(['A1']);
    sweep(m, world, { start: 4000 });
    expect(listed(m)).toEqual([]);
  });

  test.each([
    ['a new instance confirmed by its hello', (_m: RegistryMachine) => {}],
    ['a listed instance confirmed again by a hello', (m: RegistryMachine) => admit(m, b1, 0)],
  ])('an instance heard from after a sweep began is not charged a miss: %s', (_what, before) => {
    const m = machine(1);
    before(m);
    const silent = new World();
    // b1 says hello (and is confirmed) after the sweep's $SRV.INFO went out: it could not
    // have answered the sweep
    const run = sweep(m, silent, { start: 1000, during: () => admit(m, b1, 1050) });
    expect(run.event.countedMisses).toBe(true);
    expect(types(run.outputs)).not.toContain('instance_removed');
    expect(listed(m)).toEqual(['B1']);
    // the next sweep it misses counts
    sweep(m, silent, { start: 2000 });
    expect(listed(m)).toEqual([]);
  });
});

describe('a sweep that spans a disconnect or reconnect counts no misses', () => {
  test.each([
    ['a disconnect during the sweep', [], ['disconnected']],
    ['a disconnect and reconnect during the sweep', [], ['disconnected', 'reconnected']],
    ['a reconnect during the sweep', ['disconnected'], ['reconnected']],
    ['a sweep run while disconnected', ['disconnected'], []],
  ] as const)('%s', (_what, before, during) => {
    const m = machine(1);
    admit(m, instance('A1'), 0);
    const silent = new World();
    for (const input of before) m[input]();

    const run = sweep(m, silent, {
      start: 1000,
      during: () => {
        for (const input of during) m[input]();
      },
    });
    expect(run.event.countedMisses).toBe(false);
    expect(listed(m)).toEqual(['A1']);

    // back on the bus, a whole sweep counts again
    if (m.reconnected().length === 0) throw new Error('a reconnect should ask for a sweep');
    expect(sweep(m, silent, { start: 2000 }).event.countedMisses).toBe(true);
    expect(listed(m)).toEqual([]);
  });

  test('a reconnect asks for a discovery sweep, which finds instances but charges nobody', () => {
    const m = machine(1);
    const a = instance('A1');
    const b = instance('B1');
    admit(m, a, 0);

    expect(m.reconnected()).toEqual([{ type: 'discovery_sweep' }]);
    const run = sweep(m, new World().up(b), { start: 1000, countMisses: false });
    expect(run.event.countedMisses).toBe(false);
    expect(types(run.outputs)).toEqual(['instance_added', 'sweep']);
    expect(listed(m)).toEqual(['A1', 'B1']);
  });
});

test('a tool disappears with its last instance, and only then', () => {
  const m = machine(1);
  const [a, b] = [instance('A1'), instance('B1')];
  const other = instance('C1', { tool: 'fan' });
  for (const i of [a, b, other]) admit(m, i, 0);
  const world = new World().up(b, other);

  const first = sweep(m, world, { start: 1000 });
  expect(reports(first.outputs, 'instance_removed')[0]?.event).toMatchObject({
    instance: { id: 'A1' },
    toolRemoved: false,
  });
  expect(m.toolNames()).toEqual(['fan', 'lock']);
  expect(listed(m)).toEqual(['B1']);

  const last = sweep(m, world.down(b), { start: 2000 });
  expect(reports(last.outputs, 'instance_removed')[0]?.event).toMatchObject({
    instance: { id: 'B1' },
    toolRemoved: true,
  });
  expect(m.tool('lock')).toBeUndefined();
  expect(m.toolNames()).toEqual(['fan']);
});

describe('what a sweep believes', () => {
  test('an instance whose hello was missed is listed from its own INFO, a phantom is not', () => {
    const m = machine();
    const a = instance('A1');
    const phantom = instance('P1', { tool: 'shell' });
    const run = sweep(m, new World().up(a), {
      start: 0,
      hints: [a, phantom],
      invalid: ['caesar-x/X1: bad instance id'],
    });

    expect(run.plan.checks.map((c) => [c.verb, c.tool, c.id])).toEqual([
      ['INFO', 'lock', 'A1'],
      ['INFO', 'shell', 'P1'],
    ]);
    expect(types(run.outputs)).toEqual([
      'invalid_info',
      'hint_unconfirmed',
      'instance_added',
      'sweep',
    ]);
    expect(run.event).toMatchObject({ replies: 2, invalid: 1, unconfirmed: 1 });
    expect(m.toolNames()).toEqual(['lock']);
    expect(m.tool('lock')?.instances[0]).toMatchObject({ id: 'A1', source: 'sweep' });
  });

  test(`at most ${MAX_CONFIRMS_PER_SWEEP} instances are asked per sweep; the rest count as unconfirmed`, () => {
    const m = machine();
    const forged = instance('F0');
    const flood = Array.from({ length: MAX_CONFIRMS_PER_SWEEP + 88 }, (_, n) => ({
      ...forged,
      id: `F${n}`,
    }));
    const run = sweep(m, new World(), { start: 0, hints: [...flood, flood[0]!] });

    expect(run.plan.checks).toHaveLength(MAX_CONFIRMS_PER_SWEEP);
    expect(run.plan.checks[0]?.id).toBe('F0');
    expect(run.plan.skipped).toBe(88);
    expect(run.event).toMatchObject({ replies: flood.length + 1, unconfirmed: flood.length });
  });

  test('the sweep reports how long it took by the clock it was given', () => {
    const m = machine();
    const run = sweep(m, new World(), { start: 1_000, end: 1_350 });
    expect(run.event).toEqual({
      seq: 1,
      durationMs: 350,
      replies: 0,
      invalid: 0,
      unconfirmed: 0,
      countedMisses: true,
    });
    expect(sweep(m, new World(), { start: 2_000 }).event.seq).toBe(2);
  });
});
