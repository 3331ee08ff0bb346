import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { CaesarError, errorClass, type CodeAndParams, type ErrorParts } from '../errors/index.js';
import { fieldIssuesOf, summariseFieldIssues, type FieldIssue } from '../protocol/index.js';
import { formatDuration, isModulePath } from '../text/index.js';
import { waitAtMost } from '../clock/index.js';
import { defineActionTool, type ActionToolInput, type AnyAction } from './actions.js';
import { defineCommandTool } from './command-tool.js';
import { defineCallable, ToolDefinitionError, type ToolDefinition } from './define.js';
import { announcedType, type CompileJsonSchema } from './announced-type.js';

/**
 * A tool that lives outside the repository (ADR 0055): a module, a file or an installed
 * package, whose default export is a plain definition (or an array of them) with the fields
 * of `defineTool`, or with `actions` in place of `input`, `output`, `annotations` and
 * `handler` for a tool with several (ADR 0092). It imports nothing of CAESAR's, so it needs no build step and no copy of
 * CAESAR where it lives; its `input`, `output` and `config` are JSON Schemas (or zod schemas,
 * when the author has zod). A JSON Schema is checked on the brain's own engine (ajv, patterns
 * on RE2; ADR 0079) and announced as written. `defineTool` then checks the whole declaration,
 * as it does a shipped tool's.
 */

type ModuleErrorCode =
  | 'tool_module_not_found'
  | 'tool_module_no_export'
  | 'tool_module_invalid'
  | 'tool_module_import_timeout'
  | 'tool_module_clash';

/**
 * A tool module that cannot be served; the message names the module and what to fix.
 * `new ToolModuleError(code, params, {cause, tool})`; `module` is the template's `{module}`.
 */
export const ToolModuleError = errorClass(
  [
    'tool_module_not_found',
    'tool_module_no_export',
    'tool_module_invalid',
    'tool_module_import_timeout',
    'tool_module_clash',
  ] satisfies [ModuleErrorCode, ...ModuleErrorCode[]],
  (...[code, params, options]: CodeAndParams<ModuleErrorCode>) =>
    ({
      code,
      params,
      fields: { module: String(params.module) },
      options,
    }) as ErrorParts<ModuleErrorCode, { readonly module: string }>,
);
export type ToolModuleError = InstanceType<typeof ToolModuleError>;

/** What a module's definition must hold before `defineTool` sees it; the rest is its check. */
const isFunction = (message: string) =>
  z.custom<(...args: unknown[]) => unknown>((v) => typeof v === 'function', message);
const SchemaValue = z.custom<object>(
  (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  'expected a JSON Schema object such as {"type": "object", "properties": {…}}',
);
/**
 * The spec's wire names of the definition's fields, where they differ. A definition takes
 * `defineTool`'s names (and the Colony document's, ADR 0089: `execution_locality`,
 * `resource_requirements`, `cost_model`, `licensing_notes`, `hitl_frequency`); one written
 * with another would be ignored, silently (a `reads_private: true` dropped is a tool whose
 * private output nobody knows of), so it is refused, naming the field to write instead.
 */
const WIRE_SPELLINGS: Readonly<Record<string, string>> = {
  output_trust: 'outputTrust',
  reads_private: 'readsPrivate',
  timeout_ms: 'timeoutMs',
  max_concurrency: 'maxConcurrency',
  max_queue: 'maxQueue',
  config_section: 'configSection',
  input_schema: 'input',
  output_schema: 'output',
  inputs_schema: 'input',
  outputs_schema: 'output',
};
/** Refuses a field spelt with its wire name, which the definition would silently ignore. */
function refuseWireSpellings(def: Record<string, unknown>, ctx: z.RefinementCtx): void {
  for (const [wire, field] of Object.entries(WIRE_SPELLINGS)) {
    if (!Object.hasOwn(def, wire)) continue;
    const message = `the definition spells it ${field} (${wire} is the spec's name on the wire)`;
    ctx.addIssue({ code: 'custom', path: [wire], message });
  }
}
const hooks = {
  preflight: isFunction('expected a function: async preflight(ctx)').optional(),
  start: isFunction('expected a function: start(ctx)').optional(),
  stop: isFunction('expected a function: stop()').optional(),
};
const call = {
  input: SchemaValue,
  output: SchemaValue,
  handler: isFunction('expected a function: async handler(input, ctx) returning the output'),
};
const toolName = z.string({ error: 'expected a string: the tool name, e.g. "weather"' });
const PlainDefinitionSchema = z
  .looseObject({ name: toolName, ...call, config: SchemaValue.optional(), ...hooks })
  .superRefine(refuseWireSpellings);
const noHandler = z.undefined({
  error: 'a command tool has none: the SDK runs its command, and parse makes the output (ADR 0097)',
});
/** A command tool (ADR 0097): `command` and `parse` in place of `handler`. */
const PlainCommandDefinitionSchema = z
  .looseObject({
    name: toolName,
    input: SchemaValue,
    output: SchemaValue,
    config: SchemaValue.optional(),
    command: z.looseObject(
      {},
      'expected {program, args(input, config), read?, write?, network?, limits?}',
    ),
    parse: isFunction(
      'expected a function: parse({stdout, stderr, exitCode}, input) returning the output',
    ),
    handler: noHandler.optional(),
    preflight: noHandler.optional(),
    start: noHandler.optional(),
    stop: noHandler.optional(),
  })
  .superRefine(refuseWireSpellings);
/** A tool with actions (ADR 0092): each action its own schemas and handler. */
const PlainActionToolSchema = z
  .looseObject({
    name: toolName,
    config: SchemaValue.optional(),
    ...hooks,
    actions: z.record(
      z.string(),
      z.looseObject(call).superRefine(refuseWireSpellings),
      'expected a map of action names to {description, input, output, annotations, handler}',
    ),
  })
  .superRefine(refuseWireSpellings);

export interface LoadToolModuleOptions {
  /**
   * How long the module's import (its top-level code) may take; `caesar legion serve-tool`
   * passes `worker.import_timeout`. @default 10000
   */
  importTimeoutMs?: number;
}

/**
 * Loads the tools a module default-exports. `cwd` is where a relative path or a package name
 * is resolved from.
 * @throws {ToolModuleError} naming the module and the field at fault, or the import that did
 *   not finish in time
 */
export async function loadToolModule(
  specifier: string,
  cwd: string,
  options: LoadToolModuleOptions = {},
): Promise<ToolDefinition[]> {
  const file = resolveModule(specifier, cwd);
  let loaded: Record<string, unknown>;
  try {
    loaded = await importWithin(file, specifier, options.importTimeoutMs ?? 10_000);
  } catch (err) {
    if (err instanceof ToolModuleError) throw err;
    const reason = `cannot be imported (${file}): ${(err as Error).message}`;
    throw new ToolModuleError('tool_module_invalid', { module: specifier, reason }, { cause: err });
  }
  if (loaded.default === undefined) {
    const names = Object.keys(loaded);
    const exports = names.length === 0 ? 'nothing' : names.join(', ');
    throw new ToolModuleError('tool_module_no_export', { module: specifier, exports });
  }
  const defs = Array.isArray(loaded.default) ? loaded.default : [loaded.default];
  // the JSON Schema engine loads with the first module (ADR 0048: a shipped tool never needs it)
  const { compileJsonSchema } = await import('../json-schema/index.js');
  return defs.flatMap((def: unknown, i) => {
    const where = Array.isArray(loaded.default) ? `default[${i}]` : 'default';
    const has = (key: string) => typeof def === 'object' && def !== null && Object.hasOwn(def, key);
    if (has('actions')) return actionToolOf(def, where, specifier, compileJsonSchema);
    const at = { where, specifier, compile: compileJsonSchema };
    return [plainToolOf(def, at, has('command'))];
  });
}

/**
 * Imports the module's file, or fails once `timeoutMs` passes with its top-level code still
 * waiting. The timer is kept referenced: an import waiting on nothing (a promise no one will
 * settle) would otherwise let the process end at once, exit 13, with no word of why. The
 * import itself cannot be cancelled: the caller ends the process (serve-tool does).
 */
async function importWithin(
  file: string,
  specifier: string,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  const imported = import(pathToFileURL(file).href) as Promise<Record<string, unknown>>;
  if (!(await waitAtMost(imported, timeoutMs))) {
    const params = { module: specifier, timeout: formatDuration(timeoutMs), file };
    throw new ToolModuleError('tool_module_import_timeout', params);
  }
  return await imported;
}

/** The module's file: a path against `cwd`, or a package from `cwd`'s node_modules. */
function resolveModule(specifier: string, cwd: string): string {
  const isPath = isModulePath(specifier);
  try {
    return createRequire(join(cwd, 'noop.js')).resolve(
      isPath ? resolve(cwd, specifier) : specifier,
    );
  } catch (err) {
    const reason = isPath
      ? `no such file: ${resolve(cwd, specifier)}`
      : `no installed package '${specifier}' in the node_modules above ${cwd} ` +
        `(${(err as NodeJS.ErrnoException).code ?? 'not found'}); install it there, or give ` +
        'a file path starting with ./ or /';
    throw new ToolModuleError(
      'tool_module_not_found',
      { module: specifier, reason },
      { cause: err },
    );
  }
}

/** The error for a definition that cannot be served, its fields under `where`. */
function invalidDefinition(specifier: string, where: string, tool: string, issues: FieldIssue[]) {
  const listed = issues.map((i) => ({ path: `${where}.${i.path}`, message: i.message }));
  const reason = `tool '${tool}' is not a valid definition: ${summariseFieldIssues(listed)}`;
  return new ToolModuleError('tool_module_invalid', { module: specifier, reason }, { tool });
}

function nameOf(def: unknown): string {
  const name = (def as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : '?';
}

/**
 * A definition's `input`, `output` and `config` (under `path`) as zod types: a zod schema as
 * it is, a JSON Schema through {@link announcedType}; an unusable one is an issue.
 */
function schemasOf(
  compile: CompileJsonSchema,
  plain: Record<string, unknown>,
  path: string,
  issues: FieldIssue[],
): { input?: z.ZodType; output?: z.ZodType; config?: z.ZodType } {
  const schema = (key: 'input' | 'output' | 'config'): z.ZodType | undefined => {
    const value = plain[key];
    if (value === undefined) return undefined;
    if (value instanceof z.ZodType) return value;
    try {
      return announcedType(compile, value as Record<string, unknown>);
    } catch (err) {
      const message = `not a usable JSON Schema: ${(err as Error).message}`;
      issues.push({ path: `${path}${key}`, message });
      return undefined;
    }
  };
  const out: { input?: z.ZodType; output?: z.ZodType; config?: z.ZodType } = {};
  for (const key of ['input', 'output', 'config'] as const) {
    const type = schema(key);
    if (type !== undefined) out[key] = type;
  }
  return out;
}

/** A module's handler, whose coded errors become CAESAR's (see {@link codedError}). */
function coded(handler: (...args: unknown[]) => unknown) {
  return async (...args: unknown[]) => {
    try {
      return await handler(...args);
    } catch (err) {
      throw codedError(err);
    }
  };
}

/** Compiled schemas of one checked definition, spread into the SDK's own definer. */
interface CheckedSchemas {
  readonly input: z.ZodType;
  readonly output: z.ZodType;
  readonly config?: z.ZodType;
}

/**
 * One exported definition checked against `schema` and its JSON Schemas compiled, then made
 * by `make` (the SDK's definer); every problem names the module, the export and the field.
 */
function checkedDefinition<S extends z.ZodType<Record<string, unknown>>>(
  def: unknown,
  at: { where: string; specifier: string; compile: CompileJsonSchema },
  schema: S,
  make: (plain: z.infer<S>, schemas: CheckedSchemas) => ToolDefinition,
): ToolDefinition {
  const { where, specifier, compile } = at;
  const name = nameOf(def);
  const parsed = schema.safeParse(def);
  if (!parsed.success) {
    throw invalidDefinition(specifier, where, name, fieldIssuesOf(parsed.error));
  }
  const plain = parsed.data;
  const issues: FieldIssue[] = [];
  const { input, output, config } = schemasOf(compile, plain, '', issues);
  if (issues.length > 0 || input === undefined || output === undefined) {
    throw invalidDefinition(specifier, where, name, issues);
  }
  try {
    return make(plain, { input, output, ...(config === undefined ? {} : { config }) });
  } catch (err) {
    if (err instanceof ToolDefinitionError)
      throw invalidDefinition(specifier, where, name, err.issues);
    throw err;
  }
}

/**
 * One exported plain definition as a checked tool: a callable, or a command tool (ADR 0097)
 * whose program runs in the SDK's sandbox. Its module's code (the handler, or the command's
 * `parse`) throws coded errors, which become CAESAR's.
 */
function plainToolOf(
  def: unknown,
  at: { where: string; specifier: string; compile: CompileJsonSchema },
  command: boolean,
): ToolDefinition {
  if (command) {
    return checkedDefinition(def, at, PlainCommandDefinitionSchema, (plain, schemas) =>
      defineCommandTool({
        ...(plain as unknown as Parameters<typeof defineCommandTool>[0]),
        parse: coded(plain.parse),
        ...schemas,
      }),
    );
  }
  return checkedDefinition(def, at, PlainDefinitionSchema, (plain, schemas) =>
    defineCallable({
      ...(plain as unknown as Parameters<typeof defineCallable>[0]),
      handler: coded(plain.handler),
      ...schemas,
    }),
  );
}

/** One exported tool with actions (ADR 0092) as its checked callables, one per action. */
function actionToolOf(
  def: unknown,
  where: string,
  specifier: string,
  compile: CompileJsonSchema,
): ToolDefinition[] {
  const name = nameOf(def);
  const parsed = PlainActionToolSchema.safeParse(def);
  if (!parsed.success) {
    throw invalidDefinition(specifier, where, name, fieldIssuesOf(parsed.error));
  }
  const plain = parsed.data;
  const issues: FieldIssue[] = [];
  const { config } = schemasOf(compile, plain, '', issues);
  const actions: Record<string, AnyAction> = {};
  for (const [action, a] of Object.entries(plain.actions)) {
    const { input, output } = schemasOf(compile, a, `actions.${action}.`, issues);
    if (input === undefined || output === undefined) continue;
    actions[action] = { ...(a as unknown as AnyAction), input, output, handler: coded(a.handler) };
  }
  if (issues.length > 0) throw invalidDefinition(specifier, where, name, issues);
  try {
    return [
      ...defineActionTool({
        ...(plain as unknown as ActionToolInput),
        actions,
        ...(config === undefined ? {} : { config }),
      }).actions,
    ];
  } catch (err) {
    if (err instanceof ToolDefinitionError)
      throw invalidDefinition(specifier, where, name, err.issues);
    throw err;
  }
}

/** The codes whose template takes an author's words as its one `{reason}`. */
type ReasonCode = 'not_configured' | 'backend_error' | 'upstream_empty' | 'timeout';

/** The worker codes a module's handler may throw without CAESAR's classes. */
const HANDLER_CODES: ReadonlySet<string> = new Set<ReasonCode | 'invalid_input'>([
  'invalid_input',
  'not_configured',
  'backend_error',
  'upstream_empty',
  'timeout',
]);

/**
 * A module imports nothing of CAESAR's, so it cannot throw a CaesarError: an Error whose
 * `code` is one of {@link HANDLER_CODES} (and, optionally, a boolean `retryable`) becomes
 * one, so the caller gets `not_configured` with its message rather than `internal`. Any other
 * throw goes on as it is, and is answered `internal`.
 */
function codedError(err: unknown): unknown {
  if (!(err instanceof Error) || err instanceof CaesarError) return err;
  const { code, retryable } = err as { code?: unknown; retryable?: unknown };
  if (typeof code !== 'string' || !HANDLER_CODES.has(code)) return err;
  const options = { cause: err, ...(typeof retryable === 'boolean' ? { retryable } : {}) };
  // invalid_input's template names the tool and the fields, which a module's words do not
  if (code === 'invalid_input') return new CaesarError(code, err.message, options);
  return CaesarError.of(code as ReasonCode, { reason: err.message }, options);
}
