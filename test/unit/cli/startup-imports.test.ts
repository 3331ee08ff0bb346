import { describe, expect, test } from 'vitest';
import { forbiddenReached, reach } from '../../helpers/import-graph.js';

// ADR 0047: `caesar --help`, `caesar <cmd> --help` and usage errors load no heavy module, and
// the client commands (`chat`, `invoke`, `confirm`, `reject`) load no server code. Both
// follow from what the entry files import statically (test/helpers/import-graph.ts: not
// `import type`, not `import()`, which loads a runner when a command runs).

/** Packages too heavy to load before a command runs (in-process import costs: ADR 0047). */
const HEAVY_PACKAGES = [
  'fastify',
  'better-sqlite3',
  'prom-client',
  'ajv',
  'mathjs',
  'zod',
  'pino',
  '@nats-io/*',
  'undici',
  'openai',
  '@anthropic-ai/sdk',
  'tsdav',
  'ical.js',
  'js-yaml',
];

/** What the servers load: a client of the HTTP API needs none of it. */
const SERVER_PACKAGES = HEAVY_PACKAGES.filter((p) => p !== 'zod' && p !== 'js-yaml');

/** Server folders, and the one file of each that a light path may take. */
const SERVER_PATHS = [
  'src/brain/',
  'src/audit/',
  'src/policy/',
  'src/legion/',
  'src/bus/',
  'src/log/',
  'workers/',
];
const LIGHT_FILES = ['src/audit/event-names.ts', 'workers/index.ts'];

describe('caesar --help and usage errors', () => {
  test('the bin imports only the bundle check and the heartbeat; the CLI it runs is loaded with import()', () => {
    expect([...reach('src/cli/main.ts').keys()]).toEqual([
      'src/cli/main.ts',
      'src/process/bundle-fresh.ts',
      // a child of `caesar up` beats from the first moment (ADR 0070); the file imports nothing
      'src/cli/stack/heartbeat.ts',
    ]);
  });

  test('src/cli/program/cli.ts reaches no heavy package and no server folder', () => {
    expect(
      forbiddenReached('src/cli/program/cli.ts', {
        packages: HEAVY_PACKAGES,
        paths: SERVER_PATHS,
        except: LIGHT_FILES,
      }),
    ).toEqual([]);
  });

  test('the walk reaches every command declaration, and no runner', () => {
    const files = [...reach('src/cli/program/cli.ts').keys()];
    for (const declaration of [
      'src/cli/commands/chat/index.ts',
      'src/cli/commands/audit/verify.ts',
      'src/cli/commands/legion/serve-tool.ts',
      'src/cli/commands/policy/explain.ts',
    ]) {
      expect(files).toContain(declaration);
    }
    expect(files.filter((f) => f.endsWith('.run.ts') || f.endsWith('/chat/run.ts'))).toEqual([]);
    expect(files).toContain('pkg:commander');
  });
});

describe('the client commands (chat, invoke, confirm, reject)', () => {
  test('their runners reach no server package and no server code', () => {
    // of the brain, the API contract (schemas, tokens file) and what it imports
    const contract = [...reach('src/brain/api/index.ts').keys()];
    expect(
      forbiddenReached('src/cli/brain-client/runners.ts', {
        packages: SERVER_PACKAGES,
        paths: [...SERVER_PATHS, 'src/cli/stack/'],
        except: contract,
      }),
    ).toEqual([]);
  });

  test('the walk follows them down to the config loader and the API contract', () => {
    const reached = reach('src/cli/brain-client/runners.ts');
    for (const node of [
      'src/cli/brain-client/client.ts',
      'src/brain/api/contract.ts',
      'src/brain/api/tokens-file.ts',
      'src/config/load.ts',
      'pkg:zod',
    ]) {
      expect(reached.has(node), node).toBe(true);
    }
  });
});

describe('the walk', () => {
  test('finds the server behind a runner, so the checks above can fail', () => {
    expect(
      forbiddenReached('src/cli/commands/brain.run.ts', { packages: HEAVY_PACKAGES }),
    ).toContainEqual(expect.stringMatching(/-> pkg:fastify$/));
  });

  test('skips `import type`', () => {
    // chat/index.ts takes only the ChatFlags type from io.ts
    expect(reach('src/cli/commands/chat/index.ts').has('src/cli/commands/chat/io.ts')).toBe(false);
  });
});
