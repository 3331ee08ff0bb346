import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig, RuntimeFileError } from '../../config/index.js';
import { readYaml } from '../../text/index.js';
import {
  PolicyEngine,
  PolicyError,
  PolicyLoadError,
  formatExplanation,
  formatIssue,
  formatPolicySummary,
  loadPolicyFile,
  type ReadPolicyOptions,
  parsePolicyCases,
  runPolicyCases,
  type CompiledPolicy,
  type PolicyCaseResult,
  type ToolCall,
} from '../../policy/index.js';

/** Exit codes of `caesar policy ...`: ok, a failed check or mismatch, a usage error. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** Where command output goes; tests pass collectors, the CLI passes the console. */
export interface PolicyCliIo {
  out(line: string): void;
  err(line: string): void;
  /** Directory relative paths (and `./caesar.yaml`) are resolved against. @default process.cwd() */
  cwd?: string;
  /** Environment for the config loader. @default process.env */
  env?: Record<string, string | undefined>;
}

export interface PolicyFileOptions {
  /** The policy file; default: the configured one (`policy.file`, `./policy/policy.yaml`). */
  policy?: string;
  /** caesar.yaml to read the configured policy file from. */
  config?: string;
  /** Data directory of the running stack, whose runtime.json names its policy file. */
  dataDir?: string;
  json?: boolean;
}

export interface ExplainOptions extends PolicyFileOptions {
  target?: string;
  data?: string;
  confirmed?: boolean;
}

const consoleIo: PolicyCliIo = { out: (l) => console.log(l), err: (l) => console.error(l) };

class UsageError extends Error {}

/** `caesar policy check [file]`: loads the policy and reports problems with file:line:column. */
export async function runPolicyCheck(
  file: string | undefined,
  opts: PolicyFileOptions,
  io: PolicyCliIo = consoleIo,
): Promise<number> {
  if (file !== undefined && opts.policy !== undefined && file !== opts.policy) {
    io.err('caesar policy check: give the policy file as an argument or as --policy, not both');
    return EXIT_USAGE;
  }
  const loaded = await load({ ...opts, policy: file ?? opts.policy }, io);
  if (loaded === null) return EXIT_FAILED;
  if (opts.json) {
    const { file: path, sha256, rules, warnings } = loaded;
    io.out(JSON.stringify({ ok: true, file: path, sha256, rules, warnings }, null, 2));
  } else {
    formatPolicySummary(loaded).forEach((l) => io.out(l));
  }
  return EXIT_OK;
}

/**
 * `caesar policy explain <tool|domain.service> ['<json>']`: the decision, the rule that made it,
 * the reason and the obligations, then the rules considered. `--json` prints the decision.
 */
export async function runPolicyExplain(
  name: string,
  input: string | undefined,
  opts: ExplainOptions,
  io: PolicyCliIo = consoleIo,
): Promise<number> {
  let call: ToolCall;
  try {
    call = buildCall(name, input, opts);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`caesar policy explain: ${err.message}`);
    return EXIT_USAGE;
  }
  const policy = await load(opts, io);
  if (policy === null) return EXIT_FAILED;
  const explanation = new PolicyEngine(policy).explain(call, {
    confirmed: opts.confirmed ?? false,
  });
  if (opts.json) io.out(JSON.stringify(explanation.decision, null, 2));
  else formatExplanation(explanation).forEach((l) => io.out(l));
  return EXIT_OK;
}

/** `caesar policy test <cases.yaml>`: runs expectations; exit 1 on any mismatch. */
export async function runPolicyTest(
  casesFile: string,
  opts: PolicyFileOptions,
  io: PolicyCliIo = consoleIo,
): Promise<number> {
  const path = resolve(io.cwd ?? process.cwd(), casesFile);
  let cases;
  try {
    cases = parsePolicyCases(await readFile(path, 'utf8'), casesFile);
  } catch (err) {
    io.err(err instanceof PolicyError ? err.message : `cannot read ${casesFile}: ${String(err)}`);
    return EXIT_USAGE;
  }
  const policy = await load(opts, io);
  if (policy === null) return EXIT_FAILED;
  const results = runPolicyCases(policy, cases);
  const failed = results.filter((r) => !r.passed);
  if (opts.json) {
    const summary = { passed: results.length - failed.length, failed: failed.length, results };
    io.out(JSON.stringify(summary, null, 2));
  } else {
    formatCaseTable(results).forEach((l) => io.out(l));
    io.out(`${results.length - failed.length} passed, ${failed.length} failed (${policy.file})`);
  }
  return failed.length === 0 ? EXIT_OK : EXIT_FAILED;
}

/** Adds `caesar policy check|explain|test`. */
export function register(program: Command): void {
  const usageExit = (err: CommanderError): never =>
    process.exit(err.exitCode === 0 ? 0 : EXIT_USAGE);
  const group = program
    .command('policy')
    .description('check, explain and test the tool-call policy (policy.yaml)')
    .exitOverride(usageExit);
  const common = (cmd: Command): Command =>
    cmd
      .option('-p, --policy <file>', 'policy file (default: policy.file of the config)')
      .option(
        '--config <file>',
        'caesar.yaml to read (default: $CAESAR_CONFIG, then ./caesar.yaml)',
      )
      .option('--data-dir <dir>', 'data directory of the running stack (default ./var)')
      .option('--json', 'print JSON')
      .exitOverride(usageExit);
  const done = (code: number) => {
    process.exitCode = code;
  };

  common(
    group
      .command('check')
      .description('validate the policy file; report problems with file:line:column')
      .argument('[file]', 'policy file (same as --policy)'),
  ).action(async (file: string | undefined, opts: PolicyFileOptions) =>
    done(await runPolicyCheck(file, opts)),
  );

  common(
    group
      .command('explain')
      .description('show what the policy decides for a call: the rule, the reason, obligations')
      .argument('<name>', 'tool id (calculator) or Home Assistant service (light.turn_on)')
      .argument(
        '[json]',
        'tool input, or {target, data} for a service, as JSON (YAML flow works too)',
      )
      .option('--target <json>', 'service target, e.g. \'{"entity_id": "light.kitchen"}\'')
      .option('--data <json>', 'service data, e.g. \'{"brightness_pct": 50}\'')
      .option('--confirmed', 'evaluate as if a human approved the call'),
  ).action(async (name: string, input: string | undefined, opts: ExplainOptions) =>
    done(await runPolicyExplain(name, input, opts)),
  );

  common(
    group
      .command('test')
      .description('run a cases file of calls and expected outcomes against the policy')
      .argument('<cases>', 'cases file (YAML), see docs/policy.md'),
  ).action(async (cases: string, opts: PolicyFileOptions) =>
    done(await runPolicyTest(cases, opts)),
  );
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
  const config = await loadConfig({
    cwd,
    ...(opts.config === undefined ? {} : { file: opts.config }),
    ...(io.env === undefined ? {} : { env: io.env }),
    ...(opts.dataDir === undefined ? {} : { overrides: { data_dir: opts.dataDir } }),
    runningStack: true,
  });
  return { path: config.policy.file, maxBytes: config.policy.maxFileBytes };
}

async function load(opts: PolicyFileOptions, io: PolicyCliIo): Promise<CompiledPolicy | null> {
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

function buildCall(name: string, input: string | undefined, opts: ExplainOptions): ToolCall {
  const dot = name.indexOf('.');
  if (dot < 0) {
    if (opts.target !== undefined || opts.data !== undefined) {
      throw new UsageError('--target and --data are for services (domain.service)');
    }
    return { tool: name, input: input === undefined ? {} : parseArg('input', input) };
  }
  const given = input === undefined ? {} : parseArg('input', input);
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new UsageError('a service takes an object {"target": {...}, "data": {...}}');
  }
  const extra = Object.keys(given).filter((k) => k !== 'target' && k !== 'data');
  if (extra.length > 0) {
    throw new UsageError(`a service input holds only target and data, not ${extra.join(', ')}`);
  }
  const fields = given as { target?: unknown; data?: unknown };
  const target = pick('target', fields.target, opts.target);
  const data = pick('data', fields.data, opts.data);
  const raw = { domain: name.slice(0, dot), service: name.slice(dot + 1), target, data };
  return raw as ToolCall;
}

/** A service's target or data from the JSON argument or its flag (not both). */
function pick(what: string, fromJson: unknown, flag: string | undefined): unknown {
  if (flag === undefined) return fromJson ?? null;
  if (fromJson !== undefined) throw new UsageError(`${what} is given twice (JSON and --${what})`);
  return parseArg(`--${what}`, flag);
}

function parseArg(what: string, text: string): unknown {
  const doc = readYaml(text);
  const [issue] = doc.issues;
  if (issue !== undefined) {
    const where = text.includes('\n') ? ` (line ${issue.line}, column ${issue.column})` : '';
    const why = issue.message.replace(/^YAML: /, '');
    throw new UsageError(`${what} is not valid JSON or YAML${where}: ${why}`);
  }
  return doc.value;
}

/** `opa test`-style rows: verdict, case, expected, got (with the rule and, on failure, why). */
function formatCaseTable(results: readonly PolicyCaseResult[]): string[] {
  const width = Math.min(48, Math.max(4, ...results.map((r) => r.name.length)));
  return results.map((r) => {
    const head = `${r.passed ? 'PASS' : 'FAIL'}  ${r.name.padEnd(width)}  expect ${r.expected.padEnd(12)} got ${r.decision.outcome} (${r.decision.rule.id})`;
    return r.passed ? head : `${head}: ${r.mismatch}; ${r.decision.reason}`;
  });
}
