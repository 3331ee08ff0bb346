import { describe, expect, test } from 'vitest';
import { forbiddenReached, reach } from '../helpers/import-graph.js';

// ADR 0048: each process `caesar up` starts loads only what it runs. Memory itself is
// measured by `npm run bench -- footprint` (a shared machine is too noisy for bounds in a
// test); these tests guard the cause, the static import graph, which is cheap and exact.

/** Tool backends and their libraries, by the tool folder allowed to reach them. */
const TOOL_LIBRARIES: Readonly<Record<string, readonly string[]>> = {
  calculator: [],
  calendar_read: ['tsdav', 'ical.js'],
  call_service: [],
  ha_entities: [],
  web_search: [],
};

/** The brain's own parts and libraries: no other process needs them. */
const BRAIN = {
  paths: ['src/brain/', 'src/audit/', 'src/policy/'],
  packages: ['fastify', '@fastify/*', 'better-sqlite3', 'prom-client', 'ajv', 're2js'],
};

/** Loaded on first use only (a request, a session, a planner round, a calculation). */
const ON_DEMAND = ['undici', 'openai', '@anthropic-ai/sdk', 'mathjs'];

const SHIPPED = Object.keys(TOOL_LIBRARIES);

describe("caesar up's supervisor", () => {
  test('loads no brain, SDK, tool, server library or NATS client, only the preflight words', () => {
    expect(
      forbiddenReached('src/cli/stack/index.ts', {
        paths: [...BRAIN.paths, 'src/legion/', 'workers/', 'src/bus/connect.ts'],
        except: ['src/brain/preflight/', 'workers/index.ts'],
        packages: [
          ...BRAIN.packages,
          ...ON_DEMAND,
          'tsdav',
          'ical.js',
          'pino',
          '@nats-io/transport-node',
          '@nats-io/nats-core',
        ],
      }),
    ).toEqual([]);
  });

  test('the walk is real: it reaches the supervisor, the config, nats-server and the preflight words', () => {
    const reached = reach('src/cli/stack/index.ts');
    for (const node of [
      'src/cli/stack/supervisor.ts',
      'src/config/index.ts',
      'src/brain/preflight/index.ts',
      'src/bus/launcher.ts',
      'workers/index.ts',
      'pkg:@nats-io/nkeys',
    ]) {
      expect(reached.has(node), node).toBe(true);
    }
  });
});

describe('a tool worker', () => {
  test('the list of shipped tools loads no tool and not the SDK (each loads by import())', () => {
    expect(
      forbiddenReached('workers/index.ts', {
        paths: ['src/legion/', ...SHIPPED.map((t) => `workers/${t}/`)],
        packages: ['zod', '@nats-io/*'],
      }),
    ).toEqual([]);
  });

  test('the SDK loads no brain part and no library a tool may never use', () => {
    expect(
      forbiddenReached('src/legion/index.ts', {
        paths: [...BRAIN.paths, 'workers/'],
        packages: [...BRAIN.packages, ...ON_DEMAND, 'tsdav', 'ical.js'],
      }),
    ).toEqual([]);
  });

  test.each(SHIPPED)('%s loads only its own folder, its backend library and the SDK', (tool) => {
    const shared =
      tool === 'call_service' || tool === 'ha_entities' ? ['workers/home_assistant/'] : [];
    const others = SHIPPED.filter((t) => t !== tool);
    expect(
      forbiddenReached(`workers/${tool}/index.ts`, {
        paths: [...BRAIN.paths, 'workers/'],
        except: [`workers/${tool}/`, ...shared],
        packages: [...BRAIN.packages, ...ON_DEMAND, ...others.flatMap((t) => TOOL_LIBRARIES[t]!)],
      }),
    ).toEqual([]);
  });

  test("the calculator's thread, and only it, loads mathjs", () => {
    expect(reach('workers/calculator/eval-thread.ts').has('pkg:mathjs')).toBe(true);
    expect(reach('workers/calculator/index.ts').has('pkg:mathjs')).toBe(false);
  });

  test("calendar_read's parsing thread, and only it, loads ical.js; it loads no SDK main entry", () => {
    expect(reach('workers/calendar_read/scan-thread.ts').has('pkg:ical.js')).toBe(true);
    expect(reach('workers/calendar_read/index.ts').has('pkg:ical.js')).toBe(false);
    // a thread started for each call after a hostile one: the SDK's thread entry only
    expect(
      forbiddenReached('workers/calendar_read/scan-thread.ts', {
        paths: ['src/legion/index.ts', 'src/bus/', 'src/log/'],
        packages: ['tsdav', 'zod', 'pino', '@nats-io/*'],
      }),
    ).toEqual([]);
  });
});

describe('the brain', () => {
  test('loads no LLM SDK before a planner round, and no tool', () => {
    expect(
      forbiddenReached('src/brain/daemon/index.ts', {
        paths: ['workers/'],
        packages: [...ON_DEMAND, 'tsdav', 'ical.js'],
      }),
    ).toEqual([]);
  });
});

describe("the audit log's writer thread", () => {
  // a second V8 isolate in the brain: every module it loads is loaded a second time
  test('loads SQLite and the hash chain only: no schema, YAML, server or logging library', () => {
    expect(
      forbiddenReached('src/audit/writer-thread.ts', {
        paths: ['src/brain/', 'src/policy/', 'src/config/', 'src/log/', 'src/text/index.ts'],
        packages: [
          'zod',
          'js-yaml',
          'pino',
          ...BRAIN.packages.filter((p) => p !== 'better-sqlite3'),
        ],
      }),
    ).toEqual([]);
  });

  test('the walk is real: it reaches SQLite, the chain and the retention sweep', () => {
    const reached = reach('src/audit/writer-thread.ts');
    for (const node of ['src/audit/chain.ts', 'src/audit/retention.ts', 'pkg:better-sqlite3']) {
      expect(reached.has(node), node).toBe(true);
    }
  });
});
