import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startRegistry } from '../../../../../src/brain/registry/index.js';
import { stopProcess } from '../../../../helpers/brain.js';
import { runCli, startCli } from '../../../../helpers/cli.js';
import { startNats } from '../../../../helpers/nats.js';
import { ROOT } from '../../../../helpers/sources.js';
import { waitFor } from '../../../../helpers/wait.js';

// `caesar legion serve-mcp` as a real process (ADR 0095; docs/legion.md, "MCP servers as
// tools"): the filesystem MCP server (a pinned dev dependency) started from node_modules, its
// tools checked, refused, catalogued and served.

/** Each spawn of the CLI takes about a second of CPU, several on a loaded machine. */
const SPAWNING_TEST_MS = 90_000;
const SERVER = join(ROOT, 'node_modules/.bin/mcp-server-filesystem');

let dir: string;
let share: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-serve-mcp-'));
  share = await mkdtemp(join(tmpdir(), 'caesar-serve-mcp-share-'));
  await writeFile(join(share, 'a.txt'), 'a');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(share, { recursive: true, force: true });
});

/** `caesar legion serve-mcp --data-dir <dir> <args…>`: the server's own arguments come last. */
const serveMcp = (args: string[], env = {}) =>
  runCli(['legion', 'serve-mcp', '--data-dir', dir, ...args], env);

test(
  '--check lists the actions; --catalog writes an mcp entry naming the command',
  async () => {
    const r = await serveMcp([
      'files',
      '--check',
      '--catalog',
      '--tools',
      'read_text_file,list_directory',
      '--',
      SERVER,
      share,
    ]);
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout.split('\n').at(-1)!) as { actions: { name: string }[] };
    expect(printed.actions.map((a) => a.name)).toEqual([
      'files.read_text_file',
      'files.list_directory',
    ]);
    const catalog = await readFile(join(dir, 'catalog.yaml'), 'utf8');
    expect(catalog).toContain('location: mcp');
    expect(catalog).toContain(`mcp: {command: [${SERVER}, ${share}]`);
    expect(catalog).toMatch(/tools: \[read_text_file, list_directory\]/);
    const check = await runCli(['catalog', 'check', '--data-dir', dir]);
    expect(check.code).toBe(0);
  },
  SPAWNING_TEST_MS,
);

test(
  'a refusal names the flag and the next step; a bad name or a missing server is a usage error',
  async () => {
    const unknown = await serveMcp(['files', '--check', '--tools', 'nope', '--', SERVER, share]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /--tools names "nope", which it does not list; its tools: "read_file"/,
    );
    const name = await serveMcp(['Files', '--', SERVER, share]);
    expect(name.code).toBe(2);
    expect(name.stderr).toContain('is not a tool name');
    const none = await serveMcp(['files']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('a command after --');
    const missing = await serveMcp(['files', '--check', '--', join(dir, 'no-such-server')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/did not start: spawn .*no-such-server ENOENT/);
  },
  SPAWNING_TEST_MS,
);

test(
  "serves the server's tools as actions over NATS, each found by the registry",
  async () => {
    await using nats = await startNats();
    const nc = await nats.connect();
    const registry = await startRegistry({ nc });
    const worker = startCli(
      [
        'legion',
        'serve-mcp',
        'files',
        '--nats-url',
        nats.url,
        '--data-dir',
        dir,
        '--',
        SERVER,
        share,
      ],
      { CAESAR_WORKER__REQUIRE_GRANT: 'false', CAESAR_LOG__LEVEL: 'warn' },
    );
    try {
      await waitFor(
        () => registry.tools().length === 14,
        'the 14 actions of files to be registered',
        60_000,
      );
      expect(registry.tools().every((t) => t.name.startsWith('files.'))).toBe(true);
    } finally {
      await stopProcess(worker);
      await registry.close();
    }
    expect(worker.child.exitCode).toBe(0);
  },
  SPAWNING_TEST_MS,
);
