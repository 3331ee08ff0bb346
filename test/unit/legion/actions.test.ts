import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  action,
  callablesOf,
  defineTool,
  loadToolModule,
  MAX_ACTIONS,
  ToolDefinitionError,
  ToolModuleError,
  type ActionToolInput,
} from '../../../src/legion/index.js';
import { specSha256 } from '../../../src/protocol/index.js';
import { ROOT } from '../../helpers/sources.js';

// ADR 0092: a tool with several named actions, each a callable `tool.action` of its own.

const read = action({
  description: 'Reads a note by its title.',
  input: z.strictObject({ title: z.string() }),
  output: z.object({ text: z.string() }),
  annotations: { readOnly: true, openWorld: false },
  handler: (input: { title: string }) => ({ text: `note ${input.title}` }),
});
const write = action({
  description: 'Writes a note.',
  input: z.strictObject({ title: z.string(), text: z.string() }),
  output: z.object({ saved: z.boolean() }),
  annotations: { readOnly: false, openWorld: false },
  hitl: 'confirm',
  handler: () => ({ saved: true }),
});
const notes: ActionToolInput = {
  name: 'notes',
  version: '1.0.0',
  title: 'Notes',
  description: 'Reads and writes notes.',
  tags: ['home'],
  executionLocality: 'local',
  resourceRequirements: { cpu: 'low', memory_mb: 8, network: false },
  actions: { read, write },
};

const issuesOf = (def: unknown): string[] => {
  try {
    defineTool(def as ActionToolInput);
  } catch (err) {
    expect(err).toBeInstanceOf(ToolDefinitionError);
    return (err as ToolDefinitionError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error('expected the definition to be refused');
};

describe('defineTool with actions', () => {
  test('each action is a callable tool.action with its own schemas, sharing the rest', () => {
    const tool = defineTool(notes);
    expect(tool).toMatchObject({ name: 'notes', version: '1.0.0', configSection: 'notes' });
    const [r, w, ...rest] = callablesOf(tool);
    expect(rest).toEqual([]);
    expect(r!.spec).toMatchObject({
      name: 'notes.read',
      title: 'Notes: read',
      version: '1.0.0',
      tags: expect.arrayContaining(['tool', 'home']),
      hitl: 'autonomous',
      annotations: { readOnly: true, destructive: false, idempotent: true },
      input_schema: { required: ['title'] },
    });
    expect(w!.spec).toMatchObject({
      name: 'notes.write',
      hitl: 'confirm',
      annotations: { readOnly: false, destructive: true },
      input_schema: { required: ['title', 'text'] },
    });
    // both read the tool's one config section, not one each
    expect(w!.configSection).toBe('notes');
    expect(r!.specSha256).toBe(specSha256(r!.spec));
    expect(r!.specSha256).not.toBe(w!.specSha256);
  });

  test('the tool and its actions are frozen', () => {
    const tool = defineTool(notes);
    expect(Object.isFrozen(tool)).toBe(true);
    expect(Object.isFrozen(tool.actions)).toBe(true);
    expect(() => {
      (tool.actions[0]!.spec as { name: string }).name = 'x';
    }).toThrow(TypeError);
  });

  test('a one-action tool is its own only callable', () => {
    const one = defineTool({ ...notes, ...read, name: 'single', actions: undefined } as never);
    expect(callablesOf(one).map((t) => t.name)).toEqual(['single']);
  });

  test.each([
    ['no action', { actions: {} }, /actions: expected at least one action/],
    ['an action name with a capital', { actions: { Read: read } }, /actions\.Read: an action name/],
    ['an action name with a dot', { actions: { 'a.b': read } }, /actions\.a\.b: an action name/],
    [
      'a full name over 64 characters',
      { name: 'n'.repeat(40), actions: { ['a'.repeat(24)]: read } },
      /is longer than 64 characters/,
    ],
    [
      `more than ${MAX_ACTIONS} actions`,
      {
        actions: Object.fromEntries([...Array(MAX_ACTIONS + 1).keys()].map((i) => [`a${i}`, read])),
      },
      new RegExp(`at most ${MAX_ACTIONS} actions, not ${MAX_ACTIONS + 1}`),
    ],
    ['a tool name with a dot', { name: 'a.b' }, /name: a tool name matches/],
  ])('%s is refused, naming the field', (_name, patch, message) => {
    expect(issuesOf({ ...notes, ...patch }).join('\n')).toMatch(message);
  });

  test("an action's own fault names the action's field", () => {
    const bad = { ...read, annotations: undefined };
    const issues = issuesOf({ ...notes, actions: { read: bad } });
    expect(issues.join('\n')).toMatch(/annotations/);
  });

  test('a one-action tool may not take a dotted name: its actions go under actions', () => {
    const issues = issuesOf({ ...notes, ...read, name: 'notes.read', actions: undefined });
    expect(issues.join('\n')).toMatch(/name: a tool name has no '\.': declare its actions/);
  });
});

describe("a tool's start and stop run once for all its actions", () => {
  const hooked = () => {
    const log: string[] = [];
    let failStart = false;
    const tool = defineTool({
      ...notes,
      start: () => {
        log.push('start');
        if (failStart) throw new Error('backend down');
      },
      stop: () => {
        log.push('stop');
      },
    });
    const [r, w] = callablesOf(tool);
    const ctx = { logger: { debug: () => undefined }, config: {}, worker: {} } as never;
    return { log, r: r!, w: w!, ctx, failing: (on: boolean) => (failStart = on) };
  };

  test('start before the first action, stop after the last; a later start runs again', async () => {
    const { log, r, w, ctx } = hooked();
    await Promise.all([r.start!(ctx), w.start!(ctx)]);
    expect(log).toEqual(['start']);
    await r.stop!();
    expect(log).toEqual(['start']);
    await w.stop!();
    expect(log).toEqual(['start', 'stop']);
    await r.start!(ctx);
    expect(log).toEqual(['start', 'stop', 'start']);
  });

  test('a start that failed is tried again, and a failed action is not counted', async () => {
    const { log, r, w, ctx, failing } = hooked();
    failing(true);
    await expect(r.start!(ctx)).rejects.toThrow('backend down');
    failing(false);
    await w.start!(ctx);
    expect(log).toEqual(['start', 'start']);
    // only `w` runs: its stop is the last
    await w.stop!();
    expect(log).toEqual(['start', 'start', 'stop']);
  });
});

describe('a module default-exporting a tool with actions', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'caesar-actions-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const moduleText = (readInput: string) => `
const object = (properties, required) => ({ type: 'object', properties, required, additionalProperties: false });
export default {
  name: 'notes',
  version: '0.1.0',
  description: 'Reads and writes notes.',
  executionLocality: 'local',
  resourceRequirements: { cpu: 'low', memory_mb: 8, network: false },
  actions: {
    read: {
      description: 'Reads a note.',
      input: ${readInput},
      output: object({ text: { type: 'string' } }, ['text']),
      annotations: { readOnly: true, openWorld: false },
      handler: async ({ title }) => ({ text: 'note ' + title }),
    },
    write: {
      description: 'Writes a note.',
      input: object({ title: { type: 'string' } }, ['title']),
      output: object({}, []),
      annotations: { readOnly: false, openWorld: false },
      handler: async () => { throw Object.assign(new Error('disk full'), { code: 'backend_error' }); },
    },
  },
};
`;

  test('loads as one callable per action, each checked and answering', async () => {
    const file = join(root, 'ok.js');
    await writeFile(file, moduleText("object({ title: { type: 'string' } }, ['title'])"));
    const tools = await loadToolModule(file, root);
    expect(tools.map((t) => t.name)).toEqual(['notes.read', 'notes.write']);
    const [r, w] = tools;
    expect(r!.input.safeParse({ title: 'a', extra: 1 }).success).toBe(false);
    const ctx = { logger: { debug: () => undefined } } as never;
    await expect(r!.handler({ title: 'a' }, ctx)).resolves.toEqual({ text: 'note a' });
    // a module's coded error becomes CAESAR's, as for a one-action tool
    await expect(w!.handler({ title: 'a' }, ctx)).rejects.toMatchObject({ code: 'backend_error' });
  });

  test("an action's bad schema names the module and the action's field", async () => {
    const file = join(root, 'bad.js');
    await writeFile(
      file,
      moduleText("{ type: 'object', properties: { title: { type: 'nope' } } }"),
    );
    const err = await loadToolModule(file, root).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolModuleError);
    expect((err as Error).message).toMatch(
      /default\.actions\.read\.input: not a usable JSON Schema/,
    );
  });
});

describe("docs/legion.md's notes module", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'caesar-actions-doc-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test('loads as written, and its actions answer', async () => {
    const doc = readFileSync(join(ROOT, 'docs/legion.md'), 'utf8');
    const block = /```js\n(\/\/ notes\.js:[\s\S]*?)```/.exec(doc)?.[1];
    expect(block).toBeDefined();
    await writeFile(join(root, 'notes.js'), block!);
    const [read, write, ...rest] = await loadToolModule('./notes.js', root);
    expect(rest).toEqual([]);
    expect(read!.spec).toMatchObject({
      name: 'notes.read',
      title: 'Notes: read',
      hitl: 'autonomous',
    });
    expect(write!.spec).toMatchObject({ name: 'notes.write', hitl: 'confirm' });
    const ctx = { logger: { debug: () => undefined } } as never;
    await write!.handler({ title: 'wifi', text: 'guest' }, ctx);
    await expect(read!.handler({ title: 'wifi' }, ctx)).resolves.toEqual({ text: 'guest' });
  });
});
