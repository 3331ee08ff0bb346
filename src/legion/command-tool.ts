import { isAbsolute, normalize } from 'node:path';
import type { z } from 'zod';
import { InvalidInputError } from '../protocol/index.js';
import type { FieldIssue, ResourceRequirements } from '../protocol/index.js';
import {
  defineCallable,
  ToolDefinitionError,
  type ToolDefinition,
  type ToolDefinitionInput,
} from './define.js';
import { resolveLimits, type CommandLimits } from './sandbox/limits.js';
import type { CommandResult } from './sandbox/run.js';
import { Sandbox, type SandboxOptions } from './sandbox/sandbox.js';

/** The program a command tool wraps and what its sandbox allows (ADR 0097). */
export interface CommandDeclaration<I, C = unknown> {
  /** Absolute path of the program (`/usr/bin/dig`); it runs from the host's read-only /usr. */
  readonly program: string;
  /** The Debian package that ships it, named in the install hint (`bind9-dnsutils`). */
  readonly package?: string;
  /**
   * The program's arguments from the validated input: an array, each entry one argv entry
   * handed to execve, never read by a shell. Put `--` before positionals the program would
   * otherwise take as options, where the program honours it (or its own flag for a value,
   * such as dig's `-q name`). `config` is the tool's config section, validated.
   */
  readonly args: (input: I, config: C) => readonly string[];
  /** Host paths the program may read, bound read-only at the same path. @default [] */
  readonly read?: readonly string[];
  /** Paths the program may write: each a fresh empty directory per call, removed after. @default [] */
  readonly write?: readonly string[];
  /** May it reach the network? Without it the sandbox has no network at all. @default false */
  readonly network?: boolean;
  /** CPU, memory, time and output limits; defaults in `DEFAULT_LIMITS`. */
  readonly limits?: CommandLimits;
}

/** `defineTool`'s declaration without the handler and the locality, plus the command and `parse`. */
export type CommandToolInput<I extends z.ZodType, O extends z.ZodType, C extends z.ZodType> = Omit<
  ToolDefinitionInput<I, O, C>,
  | 'handler'
  | 'executionLocality'
  | 'execution_locality'
  | 'resourceRequirements'
  | 'resource_requirements'
  | 'start'
  | 'stop'
  | 'preflight'
> & {
  readonly command: CommandDeclaration<z.output<I>, z.output<C>>;
  /** What the program printed and its exit code, as the tool's output; throw to fail the call. */
  readonly parse: (result: CommandResult, input: z.output<I>) => Promise<z.input<O>> | z.input<O>;
  /** `cpu` of the spec's resource requirements (memory and network come from the command). @default 'low' */
  readonly cpu?: ResourceRequirements['cpu'];
  /** Where the sandbox runs; tests and benches set it. @default the defaults of `SandboxOptions` */
  readonly sandbox?: SandboxOptions;
};

export type CommandToolDefinition<
  I extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
  C extends z.ZodType = z.ZodType,
> = ToolDefinition<I, O, C> & { readonly sandbox: Sandbox };

/** Paths a declared read or write may not name: the sandbox's own system. */
const RESERVED = ['/', '/usr', '/proc', '/dev', '/tmp'];

/**
 * Declares a tool that runs a command-line program in a bubblewrap sandbox (ADR 0097), on
 * `defineTool`: schemas, policy, grants, audit and the card come as for any tool; the spec
 * says `execution_locality: 'sandbox'`. The sandbox starts with the first call, each call runs
 * in fresh namespaces with a fresh scratch, and the worker's stop ends it.
 */
export function defineCommandTool<
  I extends z.ZodType,
  O extends z.ZodType,
  C extends z.ZodType = z.ZodUnknown,
>(def: CommandToolInput<I, O, C>): CommandToolDefinition<I, O, C> {
  const name = String(def.name);
  const { limits, problems } = resolveLimits(def.command?.limits);
  const issues: FieldIssue[] = [...problems, ...commandIssues(def.command)];
  if (issues.length > 0) throw new ToolDefinitionError(name, issues);
  const { command: cmd, parse, cpu, sandbox: options, ...rest } = def;
  const network = cmd.network ?? false;
  const sandbox = new Sandbox(
    {
      program: cmd.program,
      ...(cmd.package === undefined ? {} : { package: cmd.package }),
      read: (cmd.read ?? []).map((p) => normalize(p)),
      write: (cmd.write ?? []).map((p) => normalize(p)),
      network,
      limits,
    },
    options,
  );
  const tool = defineCallable<I, O, C>({
    headless: 'cli_only',
    timeoutMs: limits.timeoutMs + 2000,
    ...rest,
    executionLocality: 'sandbox',
    resourceRequirements: { cpu: cpu ?? 'low', memory_mb: limits.memoryMb, network },
    handler: async (input, ctx) =>
      parse(await sandbox.run(argsOf(cmd, input, ctx.config, name), ctx.signal), input),
    stop: () => sandbox.stop(),
    preflight: async () => {
      const checks = await sandbox.checks();
      return { ok: checks.every((c) => c.ok), checks };
    },
  });
  return Object.freeze({ ...tool, sandbox });
}

/** The argv entries, each checked to be a string execve can carry. */
function argsOf<I, C>(
  cmd: CommandDeclaration<I, C>,
  input: I,
  config: C,
  tool: string,
): readonly string[] {
  const args = cmd.args(input, config);
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
    throw new TypeError(`${tool}: command.args must return an array of strings`);
  }
  const nul = args.findIndex((a) => a.includes('\0'));
  if (nul >= 0)
    throw new InvalidInputError(`invalid input for ${tool}: argument ${nul + 1} holds a NUL byte`);
  return args;
}

function commandIssues(cmd: CommandDeclaration<never, never> | undefined): FieldIssue[] {
  if (cmd === undefined || typeof cmd !== 'object')
    return [{ path: 'command', message: 'required' }];
  const issues: FieldIssue[] = [];
  if (
    typeof cmd.program !== 'string' ||
    !isAbsolute(cmd.program) ||
    !cmd.program.startsWith('/usr/')
  ) {
    issues.push({
      path: 'command.program',
      message: "expected an absolute path under /usr (the sandbox has the host's /usr, read-only)",
    });
  }
  if (typeof cmd.args !== 'function')
    issues.push({ path: 'command.args', message: 'must be a function of the input' });
  for (const key of ['read', 'write'] as const) {
    (cmd[key] ?? []).forEach((p, i) => {
      if (
        typeof p !== 'string' ||
        !isAbsolute(p) ||
        p.split('/').includes('..') ||
        RESERVED.includes(normalize(p).replace(/\/$/, '') || '/')
      ) {
        issues.push({
          path: `command.${key}.${i}`,
          message: `expected an absolute path without '..', not one of ${RESERVED.join(' ')}`,
        });
      }
    });
  }
  return issues;
}
