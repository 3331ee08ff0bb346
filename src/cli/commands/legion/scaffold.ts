/**
 * The files `caesar legion new <name>` writes (ADR 0055): a tool module with every required
 * field present and commented, a unit test that runs with `node --test` and nothing
 * installed, a docs page, and a package.json that makes the folder an installable package.
 * Plain JavaScript: the tool needs no build step and imports nothing of CAESAR's.
 */
export function scaffoldFiles(name: string, { sandbox = false } = {}): Record<string, string> {
  return {
    'package.json': packageJson(name),
    'tool.js': sandbox ? commandModule(name) : toolModule(name),
    'tool.test.js': sandbox ? commandTest(name) : toolTest(name),
    'README.md': sandbox ? commandReadme(name) : readme(name),
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

/**
 * `--sandbox`: a command tool (ADR 0097) that wraps coreutils' `factor`, a program every
 * Debian host has, so the scaffold runs as written; the comments say what to change.
 */
function commandModule(name: string): string {
  return `// The ${name} tool for CAESAR: a command-line program run in a bubblewrap sandbox
// (docs/legion.md, "Sandboxed command tools", in CAESAR). Serve it with
//   caesar legion serve-tool --module ./${name}
// The host needs bubblewrap and util-linux: apt-get install bubblewrap util-linux

export default {
  // required: the tool's id, ^[a-z][a-z0-9_]{0,63}$; policy.yaml grants it by this name
  name: '${name}',
  version: '0.1.0',
  // required: what the tool does, for the LLM and the operator, with an example input
  description: 'Factors a whole number into primes. Example: {"n": 84}.',
  // required: JSON Schema of the input; every call is checked against it before the program runs
  input: {
    type: 'object',
    properties: { n: { type: 'integer', minimum: 1, maximum: 1000000000000, description: 'the number' } },
    required: ['n'],
    additionalProperties: false,
  },
  output: {
    type: 'object',
    properties: { n: { type: 'integer' }, factors: { type: 'array', items: { type: 'integer' } } },
    required: ['n', 'factors'],
    additionalProperties: false,
  },
  // required: hints for the planner; openWorld true if the program reaches the network
  annotations: { readOnly: true, openWorld: false },
  // the program and its sandbox; the spec says execution_locality 'sandbox'
  command: {
    // an absolute path under /usr: the sandbox has the host's /usr, read-only
    program: '/usr/bin/factor',
    // the Debian package that ships it, for the install hint when it is missing
    package: 'coreutils',
    // an array, each entry one argument: never a shell string. '--' ends the program's
    // options, so an input starting with '-' is data (where the program honours '--')
    args: (input) => ['--', String(input.n)],
    // host paths it may read (read-only) and paths it may write (empty per call)
    read: [],
    write: [],
    // without network the sandbox has none at all
    network: false,
    // past each one the call ends with its own error (sandbox_cpu_limit, sandbox_memory_limit,
    // sandbox_time_limit, sandbox_output_limit)
    limits: { cpuSeconds: 2, memoryMb: 64, timeoutMs: 5000, outputBytes: 4096 },
  },
  // required: what the program printed as the output. A throw is answered \`internal\`; give
  // the Error a code for a coded answer, e.g.
  // throw Object.assign(new Error('factor failed'), { code: 'backend_error' })
  parse({ stdout, stderr, exitCode }, input) {
    if (exitCode !== 0) {
      throw Object.assign(new Error(\`factor failed: \${stderr.trim()}\`), { code: 'backend_error' });
    }
    const [, factors = ''] = stdout.trim().split(':');
    return { n: input.n, factors: factors.trim().split(/\\s+/).map(Number) };
  },
};
`;
}

function commandTest(name: string): string {
  return `// Unit test of the ${name} tool: its arguments and its parse, no sandbox and no NATS needed.
// Run it with \`npm test\` (or \`node --test\`) in this folder. The program itself runs in
// the sandbox when the tool is served: \`caesar legion serve-tool --module . --check\`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import tool from './tool.js';

test('${name} passes the number as one argument after --', () => {
  assert.deepEqual(tool.command.args({ n: 84 }), ['--', '84']);
});

test('${name} reads factor\\'s answer', () => {
  const result = { stdout: '84: 2 2 3 7\\n', stderr: '', exitCode: 0 };
  assert.deepEqual(tool.parse(result, { n: 84 }), { n: 84, factors: [2, 2, 3, 7] });
});

test('${name} declares the fields CAESAR requires', () => {
  for (const field of ['name', 'version', 'description', 'input', 'output', 'annotations', 'command', 'parse']) {
    assert.ok(tool[field] !== undefined, field);
  }
});
`;
}

function commandReadme(name: string): string {
  return `# ${name}

Factors a whole number into primes with coreutils' \`factor\`, run in a bubblewrap sandbox:
no network, none of the worker's files or environment, CPU, memory, time and output limits.
A CAESAR command tool made with \`caesar legion new ${name} --sandbox\`.

- input: \`{"n": 84}\`
- output: \`{"n": 84, "factors": [2, 2, 3, 7]}\`
- needs on the worker's host: \`apt-get install bubblewrap util-linux\`

## Test

    npm test

## Serve

    caesar legion serve-tool --module ./${name} --check   # load and check it, no NATS

## Grant and call

Add \`- tool: ${name}\` under \`allowed_tools:\` in policy.yaml, then

    caesar invoke ${name} '{"n": 84}'

What the sandbox allows and stops: docs/legion.md ("Sandboxed command tools") and ADR 0097 in CAESAR.
`;
}
