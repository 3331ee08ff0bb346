import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../../helpers/cli.js';

// Issue 31, scope 2 (ADR 0090): `caesar catalog add|remove|list|check`, and `caesar up`
// refusing a catalog entry that drifted from its module, with both values.

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'caesar-catalog-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
const cli = (args: string[]) => runCli(args, {}, { cwd: root });

async function writeWeather(tags: string[], version = '1.0.0'): Promise<void> {
  const def = {
    name: 'weather',
    version,
    description: 'Current weather for a city. Example: {"city": "Lyon"}.',
    tags,
    capabilities: ['current_weather'],
    input: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    output: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    annotations: { readOnly: true, openWorld: true },
    executionLocality: 'remote_api',
    resourceRequirements: { cpu: 'low', memory_mb: 64, network: true },
  };
  const text = `export default { ...${JSON.stringify(def)}, handler: async () => ({ text: 'sunny' }) };\n`;
  await writeFile(join(root, 'weather.mjs'), text);
}

describe('caesar catalog', () => {
  test('add, list and remove round trip, a planned stub among them', async () => {
    await writeWeather(['tool', 'web']);
    expect(await cli(['catalog', 'add', './weather.mjs'])).toMatchObject({ code: 0 });
    const planned = ['--planned', 'hpc_solver', '--purpose', 'Run FDTD jobs', '--tags', 'hpc'];
    expect(await cli(['catalog', 'add', ...planned])).toMatchObject({ code: 0 });
    const listed = await cli(['catalog', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toMatchObject([
      {
        name: 'weather',
        location: 'path',
        module: join(root, 'weather.mjs'),
        capability: 'current_weather',
        tags: ['tool', 'web'],
        version: '1.0.0',
      },
      { name: 'hpc_solver', location: 'planned', module: '', tags: ['tool', 'hpc'] },
    ]);
    const table = await cli(['catalog', 'list', '--include-tags', 'hpc']);
    expect(table.stdout).toMatch(/hpc_solver\s+planned/);
    expect(table.stdout).not.toContain('weather');
    expect(await cli(['catalog', 'remove', 'hpc_solver'])).toMatchObject({ code: 0 });
    const after = JSON.parse((await cli(['catalog', 'list', '--json'])).stdout) as unknown[];
    expect(after).toHaveLength(1);
  });

  test('check and up refuse a module whose tags changed, printing both values', async () => {
    await writeWeather(['tool', 'web']);
    await cli(['catalog', 'add', './weather.mjs']);
    expect(await cli(['catalog', 'check'])).toMatchObject({ code: 0 });
    await writeWeather(['tool', 'web', 'home']);
    const want = "entry 'weather': tags differ: catalog [tool, web], module [tool, web, home]";
    const checked = await cli(['catalog', 'check']);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain(`var/catalog.yaml: ${want}`);
    const up = await cli(['up', '--nats-port', '0', '--api-port', '0']);
    expect(up.code).not.toBe(0);
    expect(up.stderr).toContain(want);
  });

  test('a new version is drift too; adding again brings the entry up to date', async () => {
    await writeWeather(['tool', 'web'], '1.1.0');
    await cli(['catalog', 'add', './weather.mjs']);
    await writeWeather(['tool', 'web'], '1.2.0');
    const checked = await cli(['catalog', 'check']);
    expect(checked.stderr).toContain('version differs: catalog 1.1.0, module 1.2.0');
    await cli(['catalog', 'add', './weather.mjs']);
    expect(await cli(['catalog', 'check'])).toMatchObject({ code: 0 });
  });

  test('a malformed file names the file, the line, the entry and the field', async () => {
    const file = join(root, 'var', 'catalog.yaml');
    const good = await readFile(file, 'utf8');
    await writeFile(file, good.replace('location: path', 'location: moon'));
    const r = await cli(['catalog', 'list']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /var\/catalog\.yaml:\d+:\d+: tools\[0\]\.location \(entry 'weather'\): .*caesar catalog remove/,
    );
    await writeFile(file, good);
  });
});
