import { describe, expect, test } from 'vitest';
import type { SafetyField } from '../../../../src/brain/registry/safety.js';
import {
  admit,
  at,
  bye,
  instance,
  machine,
  reports,
  sweep,
  types,
  World,
  type SpecOptions,
} from './world.js';

describe('an instance id keeps the spec it first confirmed', () => {
  test('another spec under a listed id is asked on its own INFO, reported once, not adopted', () => {
    const m = machine(1);
    const first = instance('A1', { version: '1.0.0' });
    const claimed = instance('A1', { version: '2.0.0', loose: true });
    admit(m, first, 0);
    // the tool's own identity answers for A1 with the other spec
    const world = new World().up(claimed);

    const run = sweep(m, world, { start: 1000 });
    expect(run.plan.checks.map((c) => c.verb)).toEqual(['INFO']);
    expect(reports(run.outputs, 'spec_changed').map((r) => r.event)).toEqual([
      {
        tool: 'lock',
        instance: 'A1',
        host: 'host-A1',
        kind: 'instance_spec_changed',
        from_version: '1.0.0',
        to_version: '2.0.0',
        from_sha256: first.specSha256,
        to_sha256: claimed.specSha256,
        changes: ['input_schema', 'version'],
        lowered: ['input_schema'],
        lowered_safety: true,
        adopted: false,
      },
    ]);
    expect(m.tool('lock')?.instances[0]).toMatchObject({ version: '1.0.0', spec: first.spec });
    expect(m.tool('lock')?.specSha256).toBe(first.specSha256);

    // it answered on its own subject, so it is alive; the same claim is not reported again
    const again = sweep(m, world, { start: 2000 });
    expect(types(again.outputs)).toEqual(['sweep']);
    expect(m.tool('lock')?.instances[0]?.version).toBe('1.0.0');
  });
});

describe('a spec never lowers the safety its tool was first trusted with', () => {
  const strict: SpecOptions = { hitl: 'confirm', destructive: true };
  test.each<[string, SpecOptions, SafetyField[]]>([
    ['hitl confirm -> autonomous', { ...strict, hitl: 'autonomous' }, ['hitl']],
    ['destructive dropped', { ...strict, destructive: false }, ['annotations.destructive']],
    ['a looser input schema', { ...strict, loose: true }, ['input_schema']],
  ])('%s: held at the stricter value and reported once', (_what, lax, lowered) => {
    const m = machine();
    const a = instance('A1', { ...strict, version: '1.0.0' });
    const b = instance('B1', { ...lax, version: '2.0.0' });
    admit(m, a, 0);

    const out = admit(m, b, 10);
    expect(types(out)).toEqual(['instance_added', 'spec_changed']);
    expect(reports(out, 'spec_changed')[0]?.event).toMatchObject({
      kind: 'lowers_safety',
      instance: 'B1',
      from_version: '1.0.0',
      to_version: '2.0.0',
      lowered,
      adopted: false,
    });
    const view = m.tool('lock')!;
    expect(view.held).toEqual(lowered);
    expect(view.spec).toMatchObject({
      version: '2.0.0',
      hitl: 'confirm',
      annotations: { destructive: true },
      input_schema: a.spec.input_schema,
    });
    expect(view.specSha256).not.toBe(b.specSha256);
    expect(view.instances.find((i) => i.id === 'B1')?.spec).toBe(b.spec);

    // a third instance with the same spec: no second report
    expect(types(admit(m, instance('C1', { ...lax, version: '2.0.0' }), 20))).toEqual([
      'instance_added',
    ]);
    // the floor outlives the instance that set it
    m.bye(bye(a), at(30));
    m.byeChecked(bye(a), 'silent', at(31));
    expect(m.tool('lock')?.held).toEqual(lowered);
  });

  // ADR 0067: what the tool does and what its output is, read by the policy's flow rules
  const guarded: SpecOptions = { openWorld: true, outputTrust: 'untrusted', readsPrivate: true };
  test.each<[string, SpecOptions, SafetyField[], Record<string, unknown>]>([
    [
      'readOnly false -> true',
      { ...guarded, readOnly: true },
      ['annotations.readOnly'],
      { annotations: { readOnly: false } },
    ],
    [
      'openWorld true -> false',
      { ...guarded, openWorld: false },
      ['annotations.openWorld'],
      { annotations: { openWorld: true } },
    ],
    [
      'output untrusted -> trusted',
      { ...guarded, outputTrust: 'trusted' },
      ['output_trust'],
      { output_trust: 'untrusted' },
    ],
    [
      'reads_private true -> false',
      { ...guarded, readsPrivate: false },
      ['reads_private'],
      { reads_private: true },
    ],
  ])('%s: held at the stricter value and reported', (_what, lax, lowered, held) => {
    const m = machine();
    admit(m, instance('A1', { ...guarded, version: '1.0.0' }), 0);
    const b = instance('B1', { ...lax, version: '2.0.0' });

    const out = admit(m, b, 10);
    expect(types(out)).toEqual(['instance_added', 'spec_changed']);
    expect(reports(out, 'spec_changed')[0]?.event).toMatchObject({
      kind: 'lowers_safety',
      instance: 'B1',
      lowered,
      lowered_safety: true,
      adopted: false,
    });
    const view = m.tool('lock')!;
    expect(view.held).toEqual(lowered);
    expect(view.spec).toMatchObject({ version: '2.0.0', ...held });
    expect(view.instances.find((i) => i.id === 'B1')?.spec).toBe(b.spec);
  });

  test('a stricter spec is adopted as declared and raises the floor for good', () => {
    const m = machine();
    const lax = instance('A1', { version: '1.0.0' });
    const stricter = instance('B1', { version: '1.1.0', hitl: 'confirm', destructive: true });
    admit(m, lax, 0);

    expect(types(admit(m, stricter, 10))).toEqual(['instance_added']);
    expect(m.tool('lock')).toMatchObject({ specSha256: stricter.specSha256, held: [] });
    m.bye(bye(stricter), at(20));
    m.byeChecked(bye(stricter), 'silent', at(21));
    expect(m.tool('lock')).toMatchObject({
      spec: { version: '1.0.0', hitl: 'confirm', annotations: { destructive: true } },
      held: ['hitl', 'annotations.destructive'],
    });
  });

  test.each([
    ['older first', ['1.0.0', '2.0.0']],
    ['newer first', ['2.0.0', '1.0.0']],
  ])(
    'among instances found by one sweep the newest sets the floor, whichever answered first (%s)',
    (_what, order) => {
      const m = machine();
      const byVersion: Record<string, ReturnType<typeof instance>> = {
        '1.0.0': instance('A1', { version: '1.0.0', hitl: 'confirm' }),
        '2.0.0': instance('B1', { version: '2.0.0', hitl: 'autonomous' }),
      };
      const found = order.map((v) => byVersion[v]!);

      const run = sweep(m, new World().up(...found), { start: 0, hints: found });
      expect(types(run.outputs)).toEqual(['instance_added', 'instance_added', 'sweep']);
      // 2.0.0 set the floor, 1.0.0 raised it: the newest spec, held at confirm
      expect(m.tool('lock')).toMatchObject({ spec: { version: '2.0.0', hitl: 'confirm' } });
      expect(m.tool('lock')?.held).toEqual(['hitl']);
    },
  );
});
