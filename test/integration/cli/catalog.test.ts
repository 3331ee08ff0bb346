import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { discoverServices } from '../../../src/brain/registry/index.js';
import { runCli, startCli, type RunningCli } from '../../helpers/cli.js';
import { startNats } from '../../helpers/nats.js';
import { waitFor } from '../../helpers/wait.js';

/** The everything MCP server (a pinned dev dependency), as `serve-mcp` starts it. */
const EVERYTHING = fileURLToPath(
  new URL('../../../node_modules/.bin/mcp-server-everything', import.meta.url),
);

// Issue 31, scope 2 (ADR 0090): `caesar catalog add|remove|list|check`, `caesar up`
// refusing a catalog entry that drifted from its module, with both values, and starting the
// catalog's modules beside worker.modules; `serve-tool --module` offering or adding the entry.

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'caesar-catalog-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
const cli = (args: string[]) => runCli(args, {}, { cwd: root });

/** A tool module in `dir`: `<name>.mjs`, a plain definition the SDK's loader reads. */
async function writeModule(
  dir: string,
  name: string,
  more: { tags?: string[]; version?: string; memoryMb?: number } = {},
): Promise<void> {
  const def = {
    name,
    version: more.version ?? '1.0.0',
    description: `The ${name} for a city. Example: {"city": "Lyon"}.`,
    tags: more.tags ?? ['tool', 'web'],
    capabilities: [`current_${name}`],
    input: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    output: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    annotations: { readOnly: true, openWorld: true },
    executionLocality: 'remote_api',
    resourceRequirements: { cpu: 'low', memory_mb: more.memoryMb ?? 64, network: true },
  };
  const text = `export default { ...${JSON.stringify(def)}, handler: async () => ({ text: 'sunny' }) };\n`;
  await writeFile(join(dir, `${name}.mjs`), text);
}

async function writeWeather(tags: string[], version = '1.0.0'): Promise<void> {
  await writeModule(root, 'weather', { tags, version });
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

describe('caesar legion serve-tool --module', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caesar-catalog-serve-'));
    await writeModule(dir, 'weather');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Starts serving `./weather.mjs` on `url`, with the data dir `var` of `dir`. */
  function serveWeather(url: string, flags: string[]): RunningCli {
    const args = ['legion', 'serve-tool', '--module', './weather.mjs', '--nats-url', url];
    const env = { CAESAR_WORKER__REQUIRE_GRANT: 'false', CAESAR_LOG__LEVEL: 'warn' };
    return startCli([...args, '--data-dir', join(dir, 'var'), ...flags], env, { cwd: dir });
  }

  test('without --catalog it names the catalog add step; with it, the entry is added and the tool served', async () => {
    await using nats = await startNats();
    const nc = await nats.connect();
    const served = async () => (await discoverServices(nc, { windowMs: 200 })).length === 1;
    const file = join(dir, 'var', 'catalog.yaml');

    const offered = serveWeather(nats.url, []);
    try {
      await waitFor(served, 'the weather worker to be discovered', 60_000);
      expect(offered.stderr()).toContain(
        `list it in the catalog (${file}): caesar catalog add ./weather.mjs --data-dir ${join(dir, 'var')}`,
      );
    } finally {
      offered.child.kill('SIGTERM');
      await offered.closed;
    }
    await waitFor(async () => !(await served()), 'the first worker to be gone', 30_000);

    const added = serveWeather(nats.url, ['--catalog']);
    try {
      await waitFor(served, 'the weather worker to be discovered again', 60_000);
      expect(added.lines).toContain(`added weather (path ${join(dir, 'weather.mjs')}) in ${file}`);
      expect(added.stderr()).not.toContain('list it in the catalog');
    } finally {
      added.child.kill('SIGTERM');
      await added.closed;
    }
    const listed = await runCli(['catalog', 'list', '--json'], {}, { cwd: dir });
    expect(JSON.parse(listed.stdout)).toMatchObject([
      { name: 'weather', location: 'path', module: join(dir, 'weather.mjs'), version: '1.0.0' },
    ]);
  }, 120_000);
});

describe('caesar up with a catalog', () => {
  let dir: string;
  let up: RunningCli;
  const cliIn = (args: string[]) => runCli(args, {}, { cwd: dir });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caesar-catalog-up-'));
    // weather: only in the catalog, asking for more memory than tools.limits allows;
    // almanac: in the catalog and in worker.modules
    await writeModule(dir, 'weather', { memoryMb: 512 });
    await writeModule(dir, 'almanac');
    await writeFile(
      join(dir, 'caesar.yaml'),
      'worker:\n  modules: [./almanac.mjs]\ntools:\n  limits:\n    max_memory_gb: 0.4\n',
    );
    for (const m of ['./weather.mjs', './almanac.mjs']) {
      expect(await cliIn(['catalog', 'add', m])).toMatchObject({ code: 0 });
    }
    const stub = ['--planned', 'hpc_solver', '--purpose', 'Run FDTD jobs', '--tags', 'hpc'];
    expect(await cliIn(['catalog', 'add', ...stub])).toMatchObject({ code: 0 });
    // demo: an MCP server's echo tool, catalogued by serve-mcp (ADR 0095)
    const demo = ['legion', 'serve-mcp', 'demo', '--tools', 'echo', '--check', '--catalog'];
    expect(await cliIn([...demo, '--', EVERYTHING, 'stdio'])).toMatchObject({ code: 0 });
    up = startCli(
      ['up', '--tools', 'calculator', '--nats-port', '0', '--api-port', '0'],
      { CAESAR_LOG__LEVEL: 'warn' },
      { cwd: dir },
    );
    await up.waitForLine(/^ready: /, 90_000);
  }, 150_000);

  afterAll(async () => {
    if (up !== undefined && up.child.exitCode === null) {
      up.child.kill('SIGINT');
      await up.closed;
    }
    await rm(dir, { recursive: true, force: true });
  }, 30_000);

  test('starts a catalog-only module, a module in both lists once, and an MCP server', async () => {
    const output = up.lines.join('\n');
    expect(output).toMatch(/^ready: .* with 4 tool\(s\): calculator, almanac, weather, demo;/m);
    expect(up.lines.filter((l) => /^demo\s+serving\s/.test(l))).toHaveLength(1);
    expect(up.lines.filter((l) => /^almanac\s+serving\s/.test(l))).toHaveLength(1);
    expect(up.lines.filter((l) => /^weather\s+serving\s/.test(l))).toHaveLength(1);
    // a planned stub is listed, never started
    expect(output).not.toMatch(/^hpc_solver\s+serving/m);
    const list = await cliIn(['legion', 'list', '--json']);
    expect(list.code).toBe(0);
    const tools = JSON.parse(list.stdout) as { tool: string; instances: unknown[] }[];
    expect(tools.map((t) => [t.tool, t.instances.length]).sort()).toEqual([
      ['almanac', 1],
      ['calculator', 1],
      ['demo.echo', 1],
      ['weather', 1],
    ]);
  });

  test("up's preflight lines and legion list apply tools.limits: the catalog's weather warns", async () => {
    const warning =
      'memory_mb: the tool asks for 0.5 GB of memory; tools.limits.max_memory_gb is 0.4';
    expect(up.lines).toContain(`preflight     weather: ready, warns: ${warning}`);
    expect(up.lines).toContain('preflight     calculator: ready');
    const table = await cliIn(['legion', 'list']);
    expect(table.stdout).toMatch(/^weather\s+1\.0\.0\s+1\s.*\sready, warns\s+0$/m);
    expect(table.stdout).toMatch(/^almanac\s+1\.0\.0\s+1\s.*\sready\s+0$/m);
    expect(table.stdout).toContain(`weather: ready, warns: ${warning}`);
  }, 60_000);
});
