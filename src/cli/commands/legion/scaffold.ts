/**
 * The files `caesar legion new <name>` writes (ADR 0055): a tool module with every required
 * field present and commented, a unit test that runs with `node --test` and nothing
 * installed, a docs page, and a package.json that makes the folder an installable package.
 * Plain JavaScript: the tool needs no build step and imports nothing of CAESAR's.
 */
export function scaffoldFiles(name: string): Record<string, string> {
  return {
    'package.json': packageJson(name),
    'tool.js': toolModule(name),
    'tool.test.js': toolTest(name),
    'README.md': readme(name),
  };
}

function packageJson(name: string): string {
  const pkg = {
    name: `caesar-tool-${name.replaceAll('_', '-')}`,
    version: '0.1.0',
    private: true,
    description: `The ${name} tool for CAESAR`,
    type: 'module',
    main: './tool.js',
    exports: './tool.js',
    scripts: { test: 'node --test' },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

function toolModule(name: string): string {
  return `// The ${name} tool for CAESAR. Serve it with
//   caesar legion serve-tool --module ./${name}
// or list it in caesar.yaml under worker.modules. Fields: docs/legion.md in CAESAR.
// The default export is a plain definition: no import of CAESAR, no build step.

export default {
  // required: the tool's id, ^[a-z][a-z0-9_]{0,63}$; policy.yaml grants it by this name
  name: '${name}',
  // required: semver of this definition; the brain sees it in \`caesar legion list\`
  version: '0.1.0',
  // required: what the tool does, for the LLM and the operator, with an example input
  description: 'Greets someone by name. Example: {"who": "Ada"}.',
  // required: JSON Schema of the input; every call is checked against it before the handler runs
  input: {
    type: 'object',
    properties: { who: { type: 'string', minLength: 1, maxLength: 100, description: 'a name' } },
    required: ['who'],
    additionalProperties: false,
  },
  // required: JSON Schema of the output; a result that breaks it is answered \`internal\`
  output: {
    type: 'object',
    properties: { greeting: { type: 'string' } },
    required: ['greeting'],
    additionalProperties: false,
  },
  // required: hints for the planner (never trusted for security): does a call only read,
  // does it reach the outside world? Optional: destructive (can it destroy?) and idempotent
  // (is repeating it harmless?), which follow from readOnly unless given
  annotations: { readOnly: true, openWorld: false },
  // required: where the work runs: 'local', 'lan' (a device at home), 'remote_api' or
  // 'remote_job' (a job on another host that meets resourceRequirements)
  executionLocality: 'local',
  // required: what one instance needs: cpu 'low' | 'medium' | 'high', memory in MB, network
  resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
  // optional: upper bound on one call in ms (default 10000)
  timeoutMs: 2000,
  // optional: what the output is. 'trusted' only when it is computed from the call's own
  // input and nothing else, as here; 'untrusted' when it carries text from outside (web
  // pages, messages, device names) that may hold instructions a model must not follow.
  // Default: 'trusted' for a closed-world tool without network, else 'untrusted'
  outputTrust: 'trusted',
  // optional: true when the output holds the operator's private data (a calendar, contacts,
  // the home's state); after a model reads it, calls that reach the outside are gated
  readsPrivate: false,
  // required: the work. \`input\` is already valid; \`ctx\` has logger, signal (aborts at the
  // deadline), config (tools.${name} in caesar.yaml), decisionId, deadline, worker. A throw is
  // answered \`internal\`; give the Error a code for a coded answer, e.g.
  // throw Object.assign(new Error('set tools.${name}.url'), { code: 'not_configured' })
  async handler(input, ctx) {
    ctx.logger.debug({ who: input.who }, 'greeting');
    return { greeting: \`Hello, \${input.who}!\` };
  },
};
`;
}

function toolTest(name: string): string {
  return `// Unit test of the ${name} tool: calls its handler with a hand-made ctx, no NATS needed.
// Run it with \`npm test\` (or \`node --test\`) in this folder.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import tool from './tool.js';

const ctx = {
  logger: { debug() {}, info() {}, warn() {}, error() {} },
  signal: new AbortController().signal,
  decisionId: 'test',
  deadline: Date.now() + 1000,
  config: {},
  worker: { id: 'test', host: 'test' },
};

test('${name} greets by name', async () => {
  assert.deepEqual(await tool.handler({ who: 'Ada' }, ctx), { greeting: 'Hello, Ada!' });
});

test('${name} declares the fields CAESAR requires', () => {
  for (const field of ['name', 'version', 'description', 'input', 'output', 'annotations']) {
    assert.ok(tool[field] !== undefined, field);
  }
  assert.equal(tool.name, '${name}');
});
`;
}

function readme(name: string): string {
  return `# ${name}

Greets someone by name. A CAESAR tool made with \`caesar legion new ${name}\`.

- input: \`{"who": "<a name>"}\`
- output: \`{"greeting": "Hello, <name>!"}\`
- side effects: none (read-only, local, no network)
- output: trusted (computed from the input alone), nothing private
- config: none (it would be \`tools.${name}\` in caesar.yaml)

## Test

    npm test

## Serve

    caesar legion serve-tool --module ./${name} --check   # load and check it, no NATS

Add \`./${name}\` to \`worker.modules\` in caesar.yaml and \`caesar up\` serves it beside the
shipped tools. On another host: \`caesar legion serve-tool --module ./${name}\` with the bus
flags of docs/operations.md in CAESAR.

## Grant and call

Add \`- tool: ${name}\` under \`allowed_tools:\` in policy.yaml, then

    caesar invoke ${name} '{"who": "Ada"}'

The whole path, with an intent rule for \`caesar chat\`: docs/legion.md in CAESAR.
`;
}
