import { describe, expect, test } from 'vitest';
import { plannedEntry, ToolEntrySchema } from '../../../../src/legion/catalog/entry.js';

const ok = {
  name: 'weather',
  purpose: 'Current weather for a city.',
  location: 'path',
  capability: 'current_weather',
  module: '/tools/weather.js',
  version: '1.0.0',
  tags: ['tool', 'web'],
  spec_sha256: 'a'.repeat(64),
};

describe('ToolEntrySchema', () => {
  test('a planned stub has tool among its tags and no module', () => {
    const stub = plannedEntry('hpc_solver', 'Run FDTD jobs.', { tags: ['hpc'] });
    expect(ToolEntrySchema.parse(stub)).toMatchObject({ tags: ['tool', 'hpc'], module: '' });
  });

  test.each([
    ['a bad name', { name: 'Weather!' }, 'name'],
    ['tags without tool', { tags: ['web'] }, 'tags'],
    ['a planned entry with a module', { location: 'planned' }, 'module'],
    ['a module entry without a module', { module: '' }, 'module'],
    ['no spec digest', { spec_sha256: '' }, 'spec_sha256'],
    ['an unknown field', { colour: 'red' }, ''],
    ['a purpose too long', { purpose: 'x'.repeat(501) }, 'purpose'],
    ['too many tags', { tags: ['tool', ...Array.from({ length: 32 }, (_, i) => `t${i}`)] }, 'tags'],
  ])('refuses %s', (_, change, field) => {
    const r = ToolEntrySchema.safeParse({ ...ok, ...change });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => String(i.path[0] ?? ''))).toContain(field);
  });
});
