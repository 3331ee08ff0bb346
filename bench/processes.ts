/**
 * The processes of a governed-path bench, shared by bench/brain.bench.ts and
 * bench/grants.bench.ts: a child that says when it is ready, the load generator of
 * bench/load.ts in a process of its own, and a brain with its calculator worker.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createUser } from '@nats-io/nkeys';
import { readTokensFile } from '../src/brain/http/index.js';
import { CALC_INPUT, CALC_TOOL, type LoadCommand, type LoadResult } from './load.js';

const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const LOAD = fileURLToPath(new URL('./load.js', import.meta.url));

/**
 * A child process that prints `ready` (or a line matching `ready`) once it can work. Its
 * stderr (the brain's log lines, at the default level as an operator runs it) is drained
 * and only its tail kept, to say why a child that exits early died.
 */
export function spawnUntil(
  args: string[],
  ready: RegExp,
  env: NodeJS.ProcessEnv = {},
): Promise<{ child: ChildProcess; line: string; lines: Interface }> {
  const child = spawn(process.execPath, args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let tail = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-4096);
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      reject(new Error(`${args.join(' ')} exited (${code}):\n${tail}`));
    });
    const lines = createInterface({ input: child.stdout });
    const onLine = (line: string) => {
      if (!ready.test(line)) return;
      lines.off('line', onLine);
      resolve({ child, line, lines });
    };
    lines.on('line', onLine);
  });
}

/** A load generator process: one command in, one result out. */
export class LoadGenerator {
  private constructor(
    readonly child: ChildProcess,
    private readonly lines: Interface,
  ) {}

  static async start(args: string[]): Promise<LoadGenerator> {
    const { child, lines } = await spawnUntil([LOAD, ...args], /^ready$/);
    return new LoadGenerator(child, lines);
  }

  async run(cmd: LoadCommand): Promise<LoadResult> {
    const answer = new Promise<string>((resolve) => this.lines.once('line', resolve));
    this.child.stdin!.write(`${JSON.stringify(cmd)}\n`);
    const result = JSON.parse(await answer) as LoadResult;
    if (result.failed > 0) throw new Error(`${result.failed} of ${cmd.calls} bench calls failed`);
    return result;
  }
}

export async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  child.stdin?.end();
  await exited;
}

/** Calls the brain until the calculator answers: discovery may lag its start by a moment. */
export async function waitForCalculator(url: string, token: string): Promise<void> {
  for (let i = 0; ; i++) {
    const res = await fetch(`${url}/v1/tools/${CALC_TOOL}/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: CALC_INPUT }),
    });
    if (((await res.json()) as { outcome?: string }).outcome === 'ok') return;
    if (i > 100) throw new Error('the brain never served the calculator');
    await sleep(100);
  }
}

/** A brain and its calculator worker, at the default log level, as an operator runs them. */
export interface GovernedStack {
  readonly brain: ChildProcess;
  readonly calculator: ChildProcess;
  /** The brain's API. */
  readonly url: string;
  readonly token: string;
  /** The brain's NKEY seed file, with grants; the direct load generator signs with it. */
  readonly seedFile?: string;
}

/**
 * Starts `caesar legion serve-tool calculator` and `caesar brain` in `dir` on `natsUrl`, and
 * waits until a governed call succeeds. With `grants`, the brain has an NKEY identity and
 * signs every dispatch, and the worker requires grants from that key (the default an
 * operator gets, ADR 0052); without, the brain has none and the worker runs with
 * `worker.require_grant: false`.
 */
export async function startGovernedStack(
  natsUrl: string,
  dir: string,
  grants: boolean,
  brainNodeArgs: string[] = [],
): Promise<GovernedStack> {
  // its own directory, as in the default layout: the store watches the policy's directory,
  // and every audit commit in the data directory would wake that watch
  await mkdir(join(dir, 'policy'), { recursive: true });
  const policy = join(dir, 'policy', 'policy.yaml');
  await writeFile(policy, `version: 1\nallowed_tools:\n  - tool: ${CALC_TOOL}\n`);
  const common = ['--nats-url', natsUrl];
  let seedFile: string | undefined;
  let trust: string[] = [];
  if (grants) {
    const kp = createUser();
    seedFile = join(dir, 'brain.nk');
    await writeFile(seedFile, `${new TextDecoder().decode(kp.getSeed())}\n`, { mode: 0o600 });
    trust = ['--trusted-brain', kp.getPublicKey()];
  }
  // no ready line to wait for: the brain's first successful call below is the signal
  const calculator = spawn(
    process.execPath,
    [CLI, 'legion', 'serve-tool', CALC_TOOL, ...common, ...trust],
    {
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { ...process.env, ...(grants ? {} : { CAESAR_WORKER__REQUIRE_GRANT: 'false' }) },
    },
  );
  const brain = await spawnUntil(
    [
      ...brainNodeArgs,
      CLI,
      'brain',
      ...common,
      ...(seedFile ? ['--nkey-seed-file', seedFile] : []),
      '--data-dir',
      dir,
      '--api-port',
      '0',
      '--policy',
      policy,
    ],
    /^brain ready: /,
    { CAESAR_API__RATE_LIMIT: '0' },
  ).catch(async (err: unknown) => {
    await stop(calculator);
    throw err;
  });
  const url = /^brain ready: (\S+)/.exec(brain.line)?.[1] ?? '';
  const [first] = await readTokensFile(join(dir, 'api-tokens.yaml'));
  const token = first?.token ?? '';
  await waitForCalculator(url, token);
  return { brain: brain.child, calculator, url, token, ...(seedFile ? { seedFile } : {}) };
}
