import { describe, expect, test } from 'vitest';
import {
  entryWhere,
  mcpEntry,
  plannedEntry,
  ToolEntrySchema,
} from '../../../../src/legion/catalog/entry.js';

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

describe('an mcp entry (ADR 0095)', () => {
  const mcp = mcpEntry(
    { name: 'files', version: '0.2.0', description: 'The tools of the MCP server fs. More.' },
    { command: ['npx', '@modelcontextprotocol/server-filesystem', '/srv/share'] },
  );

  test('names its server and no module, and needs no sha256', () => {
    expect(ToolEntrySchema.safeParse(mcp).success).toBe(true);
    expect(mcp).toMatchObject({
      location: 'mcp',
      module: '',
      spec_sha256: '',
      tags: ['tool', 'mcp'],
    });
    expect(mcp.purpose).toBe('The tools of the MCP server fs.');
    expect(entryWhere(mcp)).toBe('mcp npx @modelcontextprotocol/server-filesystem /srv/share');
    const url = { ...mcp, mcp: { url: 'https://mcp.example.org/mcp', tools: ['search'] } };
    expect(ToolEntrySchema.safeParse(url).success).toBe(true);
  });

  test.each([
    ['no server', { mcp: undefined }, 'mcp'],
    ['both a command and a url', { mcp: { command: ['x'], url: 'https://a.b/' } }, 'mcp'],
    ['a url that is not http', { mcp: { url: 'file:///etc/passwd' } }, 'mcp.url'],
    ['a module', { module: './x.js' }, 'module'],
    ['more than 16 tools', { mcp: { command: ['x'], tools: Array(17).fill('t') } }, 'mcp.tools'],
  ])('is refused with %s', (_what, change, path) => {
    const r = ToolEntrySchema.safeParse({ ...mcp, ...change });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.'))).toContain(path);
  });

  test('only an mcp entry has mcp', () => {
    const r = ToolEntrySchema.safeParse({ ...mcp, location: 'host', module: 'h' });
    expect(r.error?.issues.map((i) => i.message)).toContain(
      'only an mcp entry has mcp (this one is host)',
    );
  });
});
