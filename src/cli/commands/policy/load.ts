import { resolve } from 'node:path';
import {
  ConfigError,
  loadConfig,
  RuntimeFileError,
  type CaesarConfig,
} from '../../../config/index.js';
import {
  PolicyError,
  PolicyLoadError,
  formatIssue,
  loadPolicyFile,
  type CompiledPolicy,
  type ReadPolicyOptions,
} from '../../../policy/index.js';
import { EXIT_USAGE } from '../../program/exit.js';
import { terminal } from '../../program/terminal.js';
import type { PolicyFileOptions } from './flags.js';

/**
 * What every `caesar policy ...` subcommand's runner shares: which policy file it loads (and
 * how a file that does not load is reported), where its output goes, its exit codes. The
 * flags they share are in `flags.ts`.
 */

/** Exit codes of `caesar policy ...`: ok, a failed check or mismatch, a usage error. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export { EXIT_USAGE };

/** Where command output goes; tests pass collectors, the CLI passes `terminal` (ADR 0064). */
export interface PolicyCliIo {
  out(line: string): void;
  err(line: string): void;
  /** Directory relative paths (and `./caesar.yaml`) are resolved against. @default process.cwd() */
  cwd?: string;
  /** Environment for the config loader. @default process.env */
  env?: Record<string, string | undefined>;
}

export const consoleIo: PolicyCliIo = { out: terminal.out, err: terminal.err };

/**
 * A runner's ending: loads the policy ({@link loadPolicy}) and gives it to `use`, which prints
 * what it found and says whether it passed. EXIT_FAILED when the file does not load or `use`
 * says it failed, else EXIT_OK.
 */
export async function withPolicy(
  opts: PolicyFileOptions,
  io: PolicyCliIo,
  use: (policy: CompiledPolicy) => boolean | Promise<boolean>,
): Promise<number> {
  const policy = await loadPolicy(opts, io);
  if (policy === null) return EXIT_FAILED;
  return (await use(policy)) ? EXIT_OK : EXIT_FAILED;
}

/**
 * Loads the policy file {@link policyPath} names; a file that does not load is reported
 * (file:line:column per problem, or JSON with `--json`) and gives null.
 */
async function loadPolicy(
  opts: PolicyFileOptions,
  io: PolicyCliIo,
): Promise<CompiledPolicy | null> {
  let path: string;
  let read: ReadPolicyOptions = {};
  try {
    const found = await policyPath(opts, io);
    path = found.path;
    if (found.maxBytes !== undefined) read = { maxBytes: found.maxBytes };
  } catch (err) {
    if (!(err instanceof ConfigError || err instanceof RuntimeFileError)) throw err;
    io.err(err.message);
    return null;
  }
  try {
    return await loadPolicyFile(path, read);
  } catch (err) {
    if (!(err instanceof PolicyError)) throw err;
    reportLoadError(path, err, opts, io);
    return null;
  }
}

/**
 * The policy file to use: `--policy` (or `check`'s argument), else `policy.file` from env /
 * caesar.yaml, else the running stack's (runtime.json in the data dir), else the default.
 */
async function policyPath(
  opts: PolicyFileOptions,
  io: PolicyCliIo,
): Promise<{ path: string; maxBytes?: number }> {
  const cwd = io.cwd ?? process.cwd();
  if (opts.policy !== undefined) return { path: resolve(cwd, opts.policy) };
  const config = await loadPolicyConfig(opts, io);
  return { path: config.policy.file, maxBytes: config.policy.maxFileBytes };
}

/**
 * The config a `caesar policy ...` subcommand reads: `--config` (else env and
 * `./caesar.yaml`), `--data-dir`, and the running stack's runtime.json in that data dir.
 * @throws {ConfigError | RuntimeFileError} a config or runtime.json that does not load
 */
export async function loadPolicyConfig(
  opts: PolicyFileOptions,
  io: PolicyCliIo,
): Promise<CaesarConfig> {
  return loadConfig({
    cwd: io.cwd ?? process.cwd(),
    ...(opts.config === undefined ? {} : { file: opts.config }),
    ...(io.env === undefined ? {} : { env: io.env }),
    ...(opts.dataDir === undefined ? {} : { overrides: { data_dir: opts.dataDir } }),
    runningStack: true,
  });
}

function reportLoadError(path: string, err: PolicyError, opts: PolicyFileOptions, io: PolicyCliIo) {
  const issues = err instanceof PolicyLoadError ? err.issues : [];
  if (opts.json) {
    const error = { code: err.code, message: err.message, issues };
    io.out(JSON.stringify({ ok: false, file: path, error }, null, 2));
  } else if (err instanceof PolicyLoadError) {
    io.err(`${path}: invalid policy (${issues.length} problem${issues.length === 1 ? '' : 's'})`);
    issues.forEach((i) => io.err(formatIssue(path, i)));
  } else {
    io.err(err.message);
  }
}
