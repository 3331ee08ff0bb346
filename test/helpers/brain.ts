/* eslint-disable @typescript-eslint/no-explicit-any --
   HTTP bodies of many shapes are read as JSON and checked by the tests' assertions. */
import { join } from 'node:path';
import { firstToken } from './tokens.js';
import { startCli, type RunAs, type RunningCli } from './cli.js';
import { waitFor } from './wait.js';

/** A `caesar brain` process and how to call its HTTP API. */
export interface BrainProcess {
  proc: RunningCli;
  url: string;
  /** The `operator` token it created. */
  token: string;
}

export interface BrainProcessOptions {
  natsUrl: string;
  dataDir: string;
  policyFile: string;
  /** More CLI flags, e.g. `--nkey-seed-file`. */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  runAs?: RunAs;
}

/** Starts `caesar brain` on any free port and waits for its ready line. */
export async function startBrainProcess(o: BrainProcessOptions): Promise<BrainProcess> {
  const proc = startCli(
    [
      'brain',
      '--nats-url',
      o.natsUrl,
      '--data-dir',
      o.dataDir,
      '--api-port',
      '0',
      '--policy',
      o.policyFile,
      '--log-level',
      'warn',
      ...(o.args ?? []),
    ],
    o.env,
    o.runAs,
  );
  const line = await proc.waitForLine(/^brain ready: /, 30_000).catch((err: unknown) => {
    proc.child.kill('SIGKILL');
    throw err;
  });
  const url = /^brain ready: (\S+)/.exec(line)?.[1] ?? '';
  return { proc, url, token: await firstToken(join(o.dataDir, 'api-tokens.yaml')) };
}

/**
 * `caesar legion serve-tool calculator` against `natsUrl`, with extra flags. With one thread
 * warm: it serves once it can answer, so the callers' deadlines time the call, not a cold
 * mathjs start (ADR 0048).
 */
/**
 * The calculator CLI worker. Without `--trusted-brain` in `args` it runs with
 * `worker.require_grant: false`: the brains these tests start have no NKEY identity and sign
 * no grants (test/integration/legion/grants.test.ts and the identity tests cover grants).
 */
export function startCalculatorProcess(natsUrl: string, args: string[] = []): RunningCli {
  const grants = args.includes('--trusted-brain') ? {} : { CAESAR_WORKER__REQUIRE_GRANT: 'false' };
  return startCli(
    ['legion', 'serve-tool', 'calculator', '--nats-url', natsUrl, '--log-level', 'warn', ...args],
    { CAESAR_TOOLS__CALCULATOR__WARM_THREADS: '1', ...grants },
  );
}

/** SIGTERM, then SIGKILL if the process is still there after 10 s: no test leaves one behind. */
export async function stopProcess(p: RunningCli | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
  await p.exited;
  clearTimeout(timer);
}

/** One HTTP call to the brain; JSON bodies parsed, others left as text. */
export async function callBrain(
  brain: BrainProcess,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = brain.token,
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${brain.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // metrics and other text bodies stay strings
  }
  return { status: res.status, body: parsed };
}

/** waitFor at a pace the API's rate limit (600 requests a minute per token) allows. */
export function pollBrain<T>(
  check: () => T | Promise<T>,
  what: string,
  timeoutMs = 10_000,
): Promise<NonNullable<T>> {
  return waitFor(check, what, timeoutMs, 150);
}
