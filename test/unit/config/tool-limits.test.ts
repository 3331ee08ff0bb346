import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig, toolConfigSections } from '../../../src/config/index.js';
import { tempDir } from './temp-dir.js';

// Issue 31: `tools.limits`, the operator's limits on what a tool may ask of a host (ADR 0091).

describe('tools.limits', () => {
  test('unset: no limit but the GPU rule, which allows', async () => {
    await using dir = await tempDir();
    const config = await loadConfig({ env: {}, cwd: dir.path });
    expect(config.toolLimits).toEqual({ allowGpu: true });
    expect(config.tools).toEqual({});
  });

  test('read from the file and typed from env; never passed to a tool as its section', async () => {
    await using dir = await tempDir();
    await dir.write(
      'caesar.yaml',
      'tools:\n  limits:\n    max_memory_gb: 7.5\n    max_wall_clock: 2m\n  web_search:\n    limits: 3\n',
    );
    const config = await loadConfig({
      env: { CAESAR_TOOLS__LIMITS__MAX_VCPUS: '8', CAESAR_TOOLS__LIMITS__ALLOW_GPU: 'false' },
      cwd: dir.path,
    });
    expect(config.toolLimits).toEqual({
      maxVcpus: 8,
      maxMemoryGb: 7.5,
      maxWallClockMs: 120_000,
      allowGpu: false,
    });
    expect(config.tools).toEqual({ web_search: { limits: 3 } });
    expect(Object.keys(toolConfigSections(config))).not.toContain('limits');
  });

  test.each([
    ['an unknown key', 'tools:\n  limits:\n    max_gpus: 2\n', 'tools.limits'],
    ['a value below its bound', 'tools:\n  limits:\n    max_vcpus: 0\n', 'tools.limits.max_vcpus'],
    ['a key that is no tool name', 'tools:\n  Web-Search: {}\n', 'tools.Web-Search'],
  ])('refuses %s, naming the key', async (_what, yaml, path) => {
    await using dir = await tempDir();
    await dir.write('caesar.yaml', yaml);
    const err = await loadConfig({ env: {}, cwd: dir.path }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    const paths = (err as ConfigError).issues.map((i) => i.path);
    expect(paths.some((p) => p.startsWith(path))).toBe(true);
  });

  test('an env var with a bad value names the variable', async () => {
    await using dir = await tempDir();
    const err = await loadConfig({
      env: { CAESAR_TOOLS__LIMITS__MAX_VCPUS: 'many' },
      cwd: dir.path,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues[0]?.source).toBe('CAESAR_TOOLS__LIMITS__MAX_VCPUS');
  });
});
