import { describe, expect, test } from 'vitest';
import type { ByeCheck } from '../../../../src/brain/registry/outputs.js';
import {
  admit,
  at,
  bye,
  hello,
  instance,
  listed,
  machine,
  reports,
  sweep,
  TOMBSTONE_MS,
  types,
  World,
} from './world.js';

describe('hellos are hints', () => {
  test('a hello lists nothing until its instance confirms on its own INFO subject', () => {
    const m = machine();
    const a = instance('A1');
    const h = hello(a);

    expect(m.hello(h)).toEqual([{ type: 'confirm_hello', hello: h }]);
    expect(m.tool('lock')).toBeUndefined();
    expect(m.hello(h)).toEqual([]); // one question per instance at a time

    const out = m.helloChecked(h, { kind: 'confirmed', instance: a }, at(5));
    expect(types(out)).toEqual(['instance_added']);
    expect(m.tool('lock')?.instances).toEqual([{ ...a, addedAt: at(5).wall, source: 'hello' }]);
  });

  const a1 = hello(instance('A1'));
  test.each([
    [
      'its own INFO subject does not confirm it',
      { kind: 'unconfirmed' as const, reason: 'no answer on its own INFO subject' },
      [
        {
          type: 'hello_unconfirmed',
          hello: a1,
          event: { tool: 'lock', instanceId: 'A1', reason: 'no answer on its own INFO subject' },
        },
      ],
    ],
    ['the INFO request failed', undefined, []],
  ])('a hello lists nothing when %s, and the next hello is asked again', (_, answer, out) => {
    const m = machine();
    m.hello(a1);

    expect(m.helloChecked(a1, answer, at(5))).toEqual(out);
    expect(m.tool('lock')).toBeUndefined();
    expect(types(m.hello(a1))).toEqual(['confirm_hello']);
  });

  test("a hello whose service is not its tool's is dropped without asking anyone", () => {
    const m = machine();
    const h = { ...hello(instance('A1')), service: 'caesar-other' };
    expect(m.hello(h)).toEqual([{ type: 'hello_ignored', hello: h }]);
  });
});

describe('byes are hints', () => {
  test('a bye for a listed instance asks its own PING first and changes nothing yet', () => {
    const m = machine();
    const a = instance('A1');
    admit(m, a, 0);

    expect(m.bye(bye(a), at(10))).toEqual([{ type: 'ping_bye', bye: bye(a) }]);
    expect(m.bye(bye(a), at(11))).toEqual([]); // one PING per instance at a time
    expect(listed(m)).toEqual(['A1']);
  });

  test.each<[ByeCheck, string[], string[]]>([
    ['answered', ['bye_refused'], ['A1']],
    ['silent', ['instance_removed'], []],
    ['failed', ['instance_removed'], []],
  ])('a bye whose PING is %s: %j, then listed %j', (answer, outputs, after) => {
    const m = machine();
    const a = instance('A1');
    admit(m, a, 0);
    m.bye(bye(a), at(10));

    const out = m.byeChecked(bye(a), answer, at(20));
    expect(types(out)).toEqual(outputs);
    expect(listed(m)).toEqual(after);
    if (answer === 'answered') {
      expect(out[0]).toMatchObject({ event: { tool: 'lock', instanceId: 'A1' } });
    } else {
      expect(reports(out, 'instance_removed')[0]?.event).toEqual({
        tool: 'lock',
        instance: expect.objectContaining({ id: 'A1' }),
        reason: 'bye',
        toolRemoved: true,
      });
    }
  });
});

describe('tombstones', () => {
  test('a taken bye keeps late INFO answers from re-adding the instance until it expires', () => {
    const m = machine();
    const a = instance('A1');
    // The worker is gone, but a replayer still answers the generic $SRV.INFO with its INFO,
    // and (so that only the tombstone can keep it out) even its own subject.
    const world = new World().up(a);
    admit(m, a, 0);
    m.bye(bye(a), at(1_000));
    m.byeChecked(bye(a), 'silent', at(1_000));

    expect(m.hello(hello(a))).toEqual([]);
    const late = sweep(m, world, { start: 2_000 });
    expect(late.plan.checks).toEqual([]);
    expect(late.event.replies).toBe(1);
    // the last sweep before expiry, and the one that ends after it, still keep it out...
    sweep(m, world, { start: 1_000 + TOMBSTONE_MS - 200 });
    expect(listed(m)).toEqual([]);
    sweep(m, world, { start: 1_000 + TOMBSTONE_MS });
    expect(listed(m)).toEqual([]);
    // ...which forgets the tombstone, so the next one believes its own subject again
    const again = sweep(m, world, { start: 1_000 + TOMBSTONE_MS + 5_000 });
    expect(types(again.outputs)).toEqual(['instance_added', 'sweep']);
    expect(m.tool('lock')?.instances[0]?.source).toBe('sweep');
  });

  test('a bye for an instance not yet listed keeps its INFO answer in flight from adding it', () => {
    const m = machine();
    const a = instance('A1');
    m.hello(hello(a));
    expect(m.bye(bye(a), at(10))).toEqual([]);

    const out = m.helloChecked(hello(a), { kind: 'confirmed', instance: a }, at(20));
    expect(out).toEqual([]);
    expect(listed(m)).toEqual([]);
  });
});

test('a closed machine ignores every input and keeps its map', () => {
  const m = machine(1);
  const a = instance('A1');
  const b = instance('B1');
  admit(m, a, 0);
  m.hello(hello(b));
  m.bye(bye(a), at(1));
  m.close();

  expect(m.closed).toBe(true);
  expect(m.hello(hello(instance('C1')))).toEqual([]);
  expect(m.helloChecked(hello(b), { kind: 'confirmed', instance: b }, at(2))).toEqual([]);
  expect(m.byeChecked(bye(a), 'silent', at(3))).toEqual([]);
  expect(m.bye(bye(a), at(4))).toEqual([]);
  expect(m.reconnected()).toEqual([]);
  const run = sweep(m, new World(), { start: 10 });
  expect(run.outputs).toEqual([]);
  expect(run.event.countedMisses).toBe(false);
  expect(listed(m)).toEqual(['A1']);
});
