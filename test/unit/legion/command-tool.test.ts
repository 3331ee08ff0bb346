import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  defineCommandTool,
  ToolDefinitionError,
  type CommandToolInput,
} from '../../../src/legion/index.js';

const input = z.strictObject({ word: z.string().max(100) });
const output = z.object({ echoed: z.string() });

const base: CommandToolInput<typeof input, typeof output, z.ZodUnknown> = {
  name: 'echo_word',
  version: '1.0.0',
  description: 'Echoes one word through printf in a sandbox.',
  input,
  output,
  annotations: { readOnly: true, openWorld: false },
  command: {
    program: '/usr/bin/printf',
    args: ({ word }) => ['%s', word],
    limits: { cpuSeconds: 2, memoryMb: 32, timeoutMs: 3000 },
  },
  parse: ({ stdout }) => ({ echoed: stdout }),
};

function issuesOf(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ToolDefinitionError);
    return (err as ToolDefinitionError & { issues: { path: string; message: string }[] }).issues;
  }
  throw new Error('expected a ToolDefinitionError');
}

describe('defineCommandTool', () => {
  test('the spec says sandbox, its needs come from the command, its timeout covers the limit', () => {
    const tool = defineCommandTool(base);
    expect(tool.spec.execution_locality).toBe('sandbox');
    expect(tool.spec.resource_requirements).toEqual({ cpu: 'low', memory_mb: 32, network: false });
    expect(tool.spec.headless).toBe('cli_only');
    expect(tool.spec.timeout_ms).toBe(5000);
    expect(tool.spec.output_trust).toBe('trusted');
    expect(tool.sandbox.command.limits).toMatchObject({ cpuSeconds: 2, outputBytes: 1024 * 1024 });
  });

  test('declared network makes the spec say network, and the output untrusted', () => {
    const tool = defineCommandTool({ ...base, command: { ...base.command, network: true } });
    expect(tool.spec.resource_requirements.network).toBe(true);
    expect(tool.spec.output_trust).toBe('untrusted');
  });

  test.each([
    [{ program: 'printf' }, 'command.program'],
    [{ program: '/opt/x/bin/tool' }, 'command.program'],
    [{ read: ['relative/dir'] }, 'command.read.0'],
    [{ read: ['/srv/../etc'] }, 'command.read.0'],
    [{ write: ['/usr'] }, 'command.write.0'],
    [{ write: ['/tmp/'] }, 'command.write.0'],
    [{ limits: { cpuSeconds: 0 } }, 'command.limits.cpuSeconds'],
    [{ limits: { memoryMb: 1.5 } }, 'command.limits.memoryMb'],
    [{ limits: { timeoutMs: 10_000_000 } }, 'command.limits.timeoutMs'],
  ])('refuses %j at definition time, naming %s', (change, path) => {
    const issues = issuesOf(() =>
      defineCommandTool({ ...base, command: { ...base.command, ...change } }),
    );
    expect(issues.map((i) => i.path)).toContain(path);
  });

  test('the definition and its spec are frozen like any tool', () => {
    const tool = defineCommandTool(base);
    expect(Object.isFrozen(tool)).toBe(true);
    expect(() => {
      (tool.spec as { name: string }).name = 'x';
    }).toThrow(TypeError);
  });
});
