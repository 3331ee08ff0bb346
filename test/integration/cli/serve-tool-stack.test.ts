import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readNkeySeed } from '../../../src/bus/index.js';
import { readRuntimeFile } from '../../../src/config/index.js';
import { workerPermissions } from '../../../src/protocol/index.js';
import { shippedToolNames } from '../../../workers/index.js';
import { runCli, startCli, type RunningCli } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';

// Issue 14, scope 2: `caesar legion serve-tool` finds a local running stack through
// <data-dir>/runtime.json, and serves under the identity `caesar up` minted for its tool.

describe('caesar legion serve-tool beside a running caesar up', () => {
  let dir: string;
  let up: RunningCli | undefined;
  let extra: RunningCli | undefined;
  let joined: RunningCli | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caesar-serve-stack-'));
    up = startCli(
      ['up', '--tools', 'calculator', '--nats-port', '0', '--api-port', '0', '--data-dir', dir],
      { CAESAR_LOG__LEVEL: 'warn' },
    );
    await up.waitForLine(/^ready: /, 60_000);
  }, 90_000);

  afterAll(async () => {
    extra?.child.kill('SIGKILL');
    await extra?.exited;
    joined?.child.kill('SIGKILL');
    await joined?.exited;
    if (up && up.child.exitCode === null) {
      up.child.kill('SIGINT');
      await up.exited;
    }
    await rm(dir, { recursive: true, force: true });
  }, 30_000);

  test('runtime.json names a worker identity for every shipped tool, started or not', async () => {
    const info = await readRuntimeFile(dir);
    expect(Object.keys(info?.tool_seed_files ?? {}).sort()).toEqual([...shippedToolNames()].sort());
    expect(info?.tool_seed_files?.web_search).toBe(join(dir, 'nkeys', 'tool-web_search.nk'));
  });

  test('a tool the stack did not start joins it with --data-dir alone, under its own identity', async () => {
    extra = startCli([
      'legion',
      'serve-tool',
      'web_search',
      '--data-dir',
      dir,
      '--log-level',
      'info',
    ]);
    const listed = await waitFor(
      async () => {
        const r = await runCli(['legion', 'list', '--data-dir', dir, '--json']);
        if (r.code !== 0) return undefined;
        const tools = JSON.parse(r.stdout) as { tool: string; instances: unknown[] }[];
        return tools.find((t) => t.tool === 'web_search' && t.instances.length === 1);
      },
      'web_search to be listed by the running stack',
      30_000,
      250,
    );
    expect(listed).toBeDefined();
    expect(extra.stderr()).toContain('"msg":"ready"');
    expect(extra.stderr()).not.toMatch(/permissions violation/i);
  }, 60_000);

  test("the worker reads its tool's seed, not the operator's (without it, it cannot start)", async () => {
    await rm(join(dir, 'nkeys', 'tool-ha_entities.nk'));
    const r = await runCli(['legion', 'serve-tool', 'ha_entities', '--data-dir', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `cannot read NKEY seed file '${join(dir, 'nkeys', 'tool-ha_entities.nk')}'`,
    );
  }, 30_000);

  test('a module tool the stack has no identity for joins it: the stack mints one that may serve that tool only (issue 29)', async () => {
    const module = join(dir, 'my-tools', 'greeter');
    expect((await runCli(['legion', 'new', 'greeter', '--dir', module])).code).toBe(0);
    joined = startCli(['legion', 'serve-tool', '--module', module, '--data-dir', dir]);
    await waitFor(
      async () => {
        const r = await runCli(['legion', 'list', '--data-dir', dir, '--json']);
        if (r.code !== 0) return undefined;
        const tools = JSON.parse(r.stdout) as { tool: string; instances: unknown[] }[];
        return tools.find((t) => t.tool === 'greeter' && t.instances.length === 1);
      },
      'greeter to be listed by the running stack',
      30_000,
      250,
    );
    const { publicKey } = await readNkeySeed(join(dir, 'nkeys', 'tool-greeter.nk'));
    const conf = await readFile(join(dir, 'nats-server.conf'), 'utf8');
    const users = (
      JSON.parse(/^authorization: (\{[\s\S]*\})\s*$/m.exec(conf)![1]!) as {
        users: { nkey: string; permissions?: unknown }[];
      }
    ).users;
    expect(users.find((u) => u.nkey === publicKey)?.permissions).toEqual(
      workerPermissions(['greeter']),
    );
    // the stack's own identities are still there, unchanged in number but for the new one
    expect(users).toHaveLength(2 + shippedToolNames().length + 1);
  }, 60_000);

  // ADR 0093: home_assistant's two actions share its one identity; an old tool still serves, and says so
  test('home_assistant joins with both actions under one identity; call_service joins with a warning', async () => {
    const ha = startCli(['legion', 'serve-tool', 'home_assistant', '--data-dir', dir]);
    const old = startCli(['legion', 'serve-tool', 'call_service', '--data-dir', dir]);
    try {
      const listed = await waitFor(
        async () => {
          const r = await runCli(['legion', 'list', '--data-dir', dir, '--json']);
          if (r.code !== 0) return undefined;
          const names = (JSON.parse(r.stdout) as { tool: string }[]).map((t) => t.tool);
          const want = ['call_service', 'home_assistant.call_service', 'home_assistant.entities'];
          return want.every((n) => names.includes(n)) ? names : undefined;
        },
        'home_assistant and call_service to be listed by the running stack',
        30_000,
        250,
      );
      expect(listed).toBeDefined();
      expect(ha.stderr()).not.toMatch(/permissions violation|deprecated/i);
      expect(old.stderr()).toMatch(
        /'call_service' is deprecated and will be removed in the next release: serve 'home_assistant' instead/,
      );
    } finally {
      for (const p of [ha, old]) p.child.kill('SIGKILL');
      await Promise.all([ha.exited, old.exited]);
    }
  }, 60_000);

  test('two tools in one process are refused: the stack has one identity per tool', async () => {
    const r = await runCli([
      'legion',
      'serve-tool',
      'web_search',
      'ha_entities',
      '--data-dir',
      dir,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('not one for web_search + ha_entities: serve one tool per process');
  }, 30_000);
});
