import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { plannedEntry } from '../../../../src/legion/catalog/entry.js';
import { parseCatalog, readCatalog, writeCatalog } from '../../../../src/legion/catalog/file.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-catalog-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the catalog file', () => {
  test('a missing file is an empty catalog', async () => {
    expect(await readCatalog(join(dir, 'none.yaml'))).toEqual({ version: 1, tools: [] });
  });

  test('what is written reads back the same, for its owner only', async () => {
    const file = join(dir, 'catalog.yaml');
    const catalog = { version: 1 as const, tools: [plannedEntry('hpc_solver', 'Run jobs.')] };
    await writeCatalog(file, catalog);
    expect(await readCatalog(file)).toEqual(catalog);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, 'utf8')).toContain('tags: [tool]');
  });

  test('a bad field names the file, the line, the entry and the field', () => {
    const text = [
      'version: 1',
      'tools:',
      '  - name: weather',
      '    purpose: Weather.',
      '    location: planned',
      '    capability: weather',
      '    module: ""',
      '    version: ""',
      '    tags: [tool, "Not A Tag"]',
      '    spec_sha256: ""',
    ].join('\n');
    expect(() => parseCatalog('var/catalog.yaml', text)).toThrow(
      /^var\/catalog\.yaml is not a valid catalog: var\/catalog\.yaml:9:\d+: tools\[0\]\.tags\[1\] \(entry 'weather'\): .*caesar catalog remove/,
    );
  });

  test('two entries of one name are refused', () => {
    const entry = (n: number) =>
      `  - {name: a, purpose: p, location: planned, capability: a, module: "", version: "", tags: [tool], spec_sha256: ""}${n === 0 ? '' : ''}`;
    const text = ['version: 1', 'tools:', entry(0), entry(1)].join('\n');
    expect(() => parseCatalog('c.yaml', text)).toThrow(/tools\[1\]\.name: 'a' is tools\[0\] too/);
  });

  test('YAML that does not parse, or too large, is refused naming the file', () => {
    expect(() => parseCatalog('c.yaml', 'tools: [')).toThrow(
      /^c\.yaml is not a valid catalog: c\.yaml:/,
    );
    const big = `version: 1\n# ${'x'.repeat(300 * 1024)}\n`;
    expect(() => parseCatalog('c.yaml', big)).toThrow(/over the limit of 262144 bytes/);
  });
});
