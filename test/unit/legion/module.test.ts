import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { scaffoldFiles } from '../../../src/cli/commands/legion/scaffold.js';
import { CaesarError, loadToolModule, ToolModuleError } from '../../../src/legion/index.js';
import { suggestToolName, TOOL_NAME_PATTERN } from '../../../src/protocol/index.js';

// ADR 0055: a tool outside the repository is a module whose default export is a plain
// definition with JSON Schemas; the loader checks it and names the field at fault.

let root: string;
const write = async (path: string, text: string) => {
  const file = join(root, path);
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, text);
  return file;
};
/** The scaffold's own module, with `edit` applied to its text. */
const scaffolded = (edit: (text: string) => string = (t) => t) =>
  edit(scaffoldFiles('greeter')['tool.js']!);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'caesar-module-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function failure(specifier: string): Promise<ToolModuleError> {
  const err = await loadToolModule(specifier, root).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ToolModuleError);
  return err as ToolModuleError;
}

describe('loadToolModule', () => {
  test("the scaffold's module loads as a checked tool whose handler runs", async () => {
    await write('ok/tool.js', scaffolded());
    const [tool, ...rest] = await loadToolModule('./ok/tool.js', root);
    expect(rest).toEqual([]);
    expect(tool!.spec).toMatchObject({
      name: 'greeter',
      version: '0.1.0',
      execution_locality: 'local',
      input_schema: { type: 'object', required: ['who'], additionalProperties: false },
      output_trust: 'trusted',
      reads_private: false,
    });
    // written out, so an author who copies it for a tool that reads the web sees the choice
    expect(tool!.outputTrust).toBe('trusted');
    expect(tool!.readsPrivate).toBe(false);
    expect(tool!.input.safeParse({ who: 'Ada', extra: 1 }).success).toBe(false);
    const out = await tool!.handler({ who: 'Ada' }, {
      logger: { debug: () => undefined },
    } as never);
    expect(out).toEqual({ greeting: 'Hello, Ada!' });
  });

  test("the --sandbox scaffold's module loads as a command tool: spec, argv and parse", async () => {
    await write('cmd/tool.js', scaffoldFiles('factorer', { sandbox: true })['tool.js']!);
    const [tool, ...rest] = await loadToolModule('./cmd/tool.js', root);
    expect(rest).toEqual([]);
    expect(tool!.spec).toMatchObject({
      name: 'factorer',
      execution_locality: 'sandbox',
      headless: 'cli_only',
      resource_requirements: { cpu: 'low', memory_mb: 64, network: false },
      timeout_ms: 7000,
    });
    const command = (tool as unknown as { sandbox: { command: Record<string, unknown> } }).sandbox
      .command;
    expect(command).toMatchObject({ program: '/usr/bin/factor', network: false });
  });

  test.each([
    ['a handler beside the command', 'handler() {}', 'handler'],
    ['no parse', null, 'parse'],
  ])('a command tool with %s names the field', async (_what, extra, field) => {
    const text = scaffoldFiles('factorer', { sandbox: true })['tool.js']!;
    const edited =
      extra === null
        ? text.replace('  parse({ stdout', '  unparsed({ stdout')
        : text.replace('  command: {', `  ${extra},\n  command: {`);
    await write(`cmd-${field}/tool.js`, edited);
    const err = await failure(`./cmd-${field}/tool.js`);
    expect(err.message).toContain(field);
  });

  // ADR 0079: a module's JSON Schema is checked on the brain's engine (ajv, patterns on RE2)
  test("a JSON Schema is announced as written and checked on the brain's engine", async () => {
    const edit = (t: string) =>
      t.replace(
        "properties: { who: { type: 'string', minLength: 1, maxLength: 100, description: 'a name' } },",
        "properties: { who: { type: 'string', maxLength: 100 }, n: { type: 'integer', default: 3 } },",
      );
    await write('engine/tool.js', scaffolded(edit));
    const [tool] = await loadToolModule('./engine/tool.js', root);
    // as written: no bounds added to the integer (zod's re-rendering added them)
    expect(tool!.spec.input_schema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { who: { type: 'string', maxLength: 100 }, n: { type: 'integer', default: 3 } },
      required: ['who'],
      additionalProperties: false,
    });
    // a declared default is filled in, as before
    expect(tool!.input.parse({ who: 'Ada' })).toEqual({ who: 'Ada', n: 3 });
    const refused = tool!.input.safeParse({ who: 7, extra: 1 });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['extra', "unknown field 'extra'"],
      ['who', 'must be string'],
    ]);
  });

  test('a pattern RE2 cannot run fails the module at load, not every call later', async () => {
    const edit = (t: string) => t.replace('minLength: 1, maxLength: 100,', "pattern: '(?=A)A',");
    await write('lookaround/tool.js', scaffolded(edit));
    const err = await failure('./lookaround/tool.js');
    expect(err.message).toMatch(
      /default\.input: not a usable JSON Schema: pattern .* is not RE2 syntax/,
    );
  });

  test('an installed package is found by name from the working directory', async () => {
    const pkg = scaffoldFiles('greeter');
    await write('node_modules/caesar-tool-greeter/package.json', pkg['package.json']!);
    await write('node_modules/caesar-tool-greeter/tool.js', pkg['tool.js']!);
    const tools = await loadToolModule('caesar-tool-greeter', root);
    expect(tools.map((t) => t.name)).toEqual(['greeter']);
  });

  test('an array default export serves each tool', async () => {
    const one = scaffolded((t) => t.replace('export default {', 'const a = {'));
    await write('two/tool.js', `${one}\nexport default [a, { ...a, name: 'greeter_two' }];\n`);
    const tools = await loadToolModule('./two/tool.js', root);
    expect(tools.map((t) => t.name)).toEqual(['greeter', 'greeter_two']);
  });

  test.each([
    ['a missing file', './missing.js', 'tool_module_not_found', /no such file: .*missing\.js/],
    [
      'a package not installed',
      'caesar-tool-nope',
      'tool_module_not_found',
      /no installed package 'caesar-tool-nope'.*give a file path starting with \.\//,
    ],
  ])('%s is tool_module_not_found, saying where it looked', async (_, spec, code, message) => {
    const err = await failure(spec);
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
  });

  test('a module without a default export names what it does export', async () => {
    await write(
      'named/tool.js',
      scaffolded((t) => t.replace('export default {', 'export const tool = {')),
    );
    const err = await failure('./named/tool.js');
    expect(err.code).toBe('tool_module_no_export');
    expect(err.message).toContain('(it exports: tool)');
  });

  test('a module that does not import is tool_module_invalid with the cause', async () => {
    await write('broken/tool.js', 'export default {\n');
    const err = await failure('./broken/tool.js');
    expect(err.code).toBe('tool_module_invalid');
    expect(err.message).toMatch(/cannot be imported/);
  });

  test.each([
    ['no version', (t: string) => t.replace("version: '0.1.0',", ''), /default\.version: /],
    [
      'no handler',
      (t: string) => t.replace('async handler(', 'async other('),
      /default\.handler: expected a function/,
    ],
    [
      'no annotations',
      (t: string) => t.replace(/annotations: \{[^}]*\},/, ''),
      /default\.annotations: /,
    ],
    [
      'input not a schema',
      (t: string) => t.replace(/input: \{/, "input: 'text', x: {"),
      /default\.input: expected a JSON Schema object/,
    ],
    [
      'an unusable JSON Schema',
      (t: string) =>
        t.replace(
          "type: 'object',\n    properties: { who",
          "type: 'bogus',\n    properties: { who",
        ),
      /default\.input: not a usable JSON Schema/,
    ],
    [
      'a bad name',
      (t: string) => t.replace("name: 'greeter'", "name: 'Greeter'"),
      /default\.name: /,
    ],
  ])(
    'a definition with %s is tool_module_invalid naming the field',
    async (what, edit, message) => {
      const file = `invalid-${what.replaceAll(' ', '-')}/tool.js`;
      await write(file, scaffolded(edit));
      const err = await failure(`./${file}`);
      expect(err.code).toBe('tool_module_invalid');
      expect(err.message).toMatch(message);
      expect(err.message).toContain(`tool module ./${file}`);
    },
  );
});

describe("a module written in the Colony document's names (ADR 0089)", () => {
  test('execution_locality, resource_requirements, licensing_notes, hitl_frequency load', async () => {
    const edit = (t: string) =>
      t
        .replace("executionLocality: 'local',", "execution_locality: 'hpc',")
        .replace(
          "resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },",
          "resource_requirements: { cpu: 'low', memory_mb: 16, network: false, expected_wallclock_seconds: 1.5 },\n  licensing_notes: 'MIT; cite the paper',\n  hitl_frequency: 'co_pilot',",
        );
    await write('document/tool.js', scaffolded(edit));
    const [tool] = await loadToolModule('./document/tool.js', root);
    expect(tool!.spec).toMatchObject({
      execution_locality: 'remote_job',
      resource_requirements: { expected_wall_clock_ms: 1500 },
      licensing_notes: 'MIT; cite the paper',
      hitl: 'confirm',
    });
    expect(Object.isFrozen(tool!.spec.resource_requirements)).toBe(true);
  });
});

describe("what a module's tool says its output is", () => {
  const without = (t: string) => t.replace(/\n\s*(outputTrust|readsPrivate): [^\n]*/g, '');

  test('left out, the spec says the defaults; declared, the declaration', async () => {
    await write('plain/tool.js', scaffolded(without));
    const [plain] = await loadToolModule('./plain/tool.js', root);
    expect(plain!.spec).toMatchObject({ output_trust: 'trusted', reads_private: false });
    await write(
      'private/tool.js',
      scaffolded((t) =>
        without(t).replace(
          'timeoutMs: 2000,',
          "timeoutMs: 2000,\n  outputTrust: 'untrusted',\n  readsPrivate: true,",
        ),
      ),
    );
    const [declared] = await loadToolModule('./private/tool.js', root);
    expect(declared!.spec).toMatchObject({ output_trust: 'untrusted', reads_private: true });
  });

  test.each([
    [
      'a bad outputTrust',
      (t: string) =>
        without(t).replace('timeoutMs: 2000,', "timeoutMs: 2000, outputTrust: 'mostly',"),
      /default\.output_trust: /,
    ],
    [
      'a bad readsPrivate',
      (t: string) => without(t).replace('timeoutMs: 2000,', "timeoutMs: 2000, readsPrivate: 'no',"),
      /default\.reads_private: /,
    ],
    [
      "the spec's spelling reads_private",
      (t: string) =>
        without(t).replace('timeoutMs: 2000,', 'timeoutMs: 2000, reads_private: true,'),
      /default\.reads_private: the definition spells it readsPrivate/,
    ],
    [
      "the spec's spelling output_trust",
      (t: string) =>
        without(t).replace('timeoutMs: 2000,', "timeoutMs: 2000, output_trust: 'untrusted',"),
      /default\.output_trust: the definition spells it outputTrust/,
    ],
    [
      "the document's inputs_schema",
      (t: string) => t.replace('timeoutMs: 2000,', 'timeoutMs: 2000, inputs_schema: {},'),
      /default\.inputs_schema: the definition spells it input/,
    ],
    [
      "the spec's spelling timeout_ms",
      (t: string) => t.replace('timeoutMs: 2000', 'timeout_ms: 2000'),
      /default\.timeout_ms: the definition spells it timeoutMs/,
    ],
  ])('%s is tool_module_invalid naming the field', async (what, edit, message) => {
    const file = `output-${what.replace(/\W+/g, '-')}/tool.js`;
    await write(file, scaffolded(edit));
    const err = await failure(`./${file}`);
    expect(err.code).toBe('tool_module_invalid');
    expect(err.message).toMatch(message);
  });
});

describe("a module's handler errors", () => {
  test.each([
    ['not_configured', undefined, 'not_configured', false],
    ['backend_error', false, 'backend_error', false],
    ['backend_error', undefined, 'backend_error', true],
  ])(
    'an Error with code %s (retryable %s) reaches the caller as %s',
    async (code, retryable, expected, expectedRetryable) => {
      const fields = JSON.stringify({ code, ...(retryable === undefined ? {} : { retryable }) });
      const text = scaffolded((t) =>
        t.replace(
          /return \{ greeting: .*;/,
          `throw Object.assign(new Error('set tools.greeter.url'), ${fields});`,
        ),
      );
      const file = `coded-${code}-${String(retryable)}/tool.js`;
      await write(file, text);
      const [tool] = await loadToolModule(`./${file}`, root);
      const err = await Promise.resolve(
        tool!.handler({ who: 'Ada' }, { logger: { debug: () => undefined } } as never),
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CaesarError);
      const words = expected === 'not_configured' ? 'not configured' : 'the backend failed';
      expect(err).toMatchObject({
        code: expected,
        message: `${words}: set tools.greeter.url`,
        retryable: expectedRetryable,
      });
    },
  );

  test('any other throw goes on as it is (answered internal)', async () => {
    const text = scaffolded((t) =>
      t.replace(
        /return \{ greeting: .*;/,
        "throw Object.assign(new Error('boom'), { code: 'ECONNREFUSED' });",
      ),
    );
    await write('uncoded/tool.js', text);
    const [tool] = await loadToolModule('./uncoded/tool.js', root);
    const err = await Promise.resolve(
      tool!.handler({ who: 'Ada' }, { logger: { debug: () => undefined } } as never),
    ).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(CaesarError);
    expect(err).toMatchObject({ message: 'boom', code: 'ECONNREFUSED' });
  });
});

describe('suggestToolName', () => {
  test.each([
    ['My-Weather', 'my_weather'],
    ['weather station', 'weather_station'],
    ['2fa', 'tool_2fa'],
    ['-x-', 'x'],
    ['a'.repeat(80), 'a'.repeat(64)],
  ])('%s -> %s, a valid name', (name, suggested) => {
    expect(suggestToolName(name)).toBe(suggested);
    expect(TOOL_NAME_PATTERN.test(suggested)).toBe(true);
  });
});
