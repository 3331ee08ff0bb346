import {
  callerText,
  PolicyEngine,
  formatExplanation,
  type FlowContext,
  type Principal,
  type ToolCall,
} from '../../../policy/index.js';
import { PRINCIPAL_NAME_RE, PRINCIPAL_NAME_RULE } from '../../../policy/principal.js';
import { readYaml, terminalLine } from '../../../text/index.js';
import { consoleIo, EXIT_USAGE, withPolicy, type PolicyCliIo } from './load.js';
import type { PolicyFileOptions } from './flags.js';
import { errorClass } from '../../../errors/index.js';

/** `caesar policy explain`'s flags. */
export interface ExplainOptions extends PolicyFileOptions {
  target?: string;
  data?: string;
  confirmed?: boolean;
  /** Simulate a model's call (docs/policy.md, "Flow rules"): what its turn had read. */
  afterUntrusted?: boolean;
  afterPrivate?: boolean;
  /** The tool's effects, which only the live spec knows; a service call has both. */
  changesState?: boolean;
  openWorld?: boolean;
  /** `--no-shared-words` sets it false. @default true */
  sharedWords?: boolean;
  /** Judge the call as this principal (ADR 0096). @default none: rules naming one skip it */
  principal?: string;
  /** Its groups (`--group`, repeated). */
  group?: string[];
}

/** A call that cannot be built from the arguments: exit 2 with the reason. */
const UsageError = errorClass('usage', (argument: string, problem: string) => ({
  params: { argument, problem },
}));

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
  let principal: Principal | undefined;
  try {
    call = buildCall(name, input, opts);
    principal = principalOf(opts);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`caesar policy explain: ${err.message}`);
    return EXIT_USAGE;
  }
  return withPolicy(opts, io, (policy) => {
    const flow = flowOf(name, opts);
    if (flow?.note !== undefined) io.err(terminalLine(flow.note));
    const explanation = new PolicyEngine(policy).explain(call, {
      confirmed: opts.confirmed ?? false,
      ...(flow === undefined ? {} : { flow: flow.context }),
      ...(principal === undefined ? {} : { principal }),
    });
    if (opts.json) {
      io.out(JSON.stringify(explanation.decision, null, 2));
      return true;
    }
    // a line each, escaped: the reason and the trace quote the call's names and input
    formatExplanation(explanation).forEach((l) => io.out(terminalLine(l)));
    if (principal !== undefined) io.out(terminalLine(`as ${callerText(principal)}`));
    return true;
  });
}

/**
 * The flow context of a simulated model's call, when a flow flag is given. Offline, the tool's
 * effects are the flags'; a Home Assistant service changes state and reaches outside, as the
 * shipped call_service declares. `note`: what to add when a tool's effects are not given.
 */
function flowOf(
  name: string,
  opts: ExplainOptions,
): { context: FlowContext; note?: string } | undefined {
  const given = [opts.afterUntrusted, opts.afterPrivate, opts.changesState, opts.openWorld];
  if (!given.some((f) => f === true) && opts.sharedWords !== false) return undefined;
  const service = name.includes('.');
  const context: FlowContext = {
    afterUntrusted: opts.afterUntrusted === true,
    afterPrivate: opts.afterPrivate === true,
    changesState: service || opts.changesState === true,
    openWorld: service || opts.openWorld === true,
    sharesPrivateWords: opts.sharedWords !== false,
  };
  const unknown = !service && opts.changesState !== true && opts.openWorld !== true;
  if (!unknown) return { context };
  const note =
    `note: explained as a tool that neither changes state nor reaches outside; ` +
    `give --changes-state and --open-world as ${name}'s spec declares (POST /v1/policy/explain reads them from the live tool)`;
  return { context, note };
}

/** `--principal` with its `--group`s; a group without a principal is a usage error. */
function principalOf(opts: ExplainOptions): Principal | undefined {
  const groups = opts.group ?? [];
  if (opts.principal === undefined) {
    if (groups.length > 0) throw new UsageError('--group', 'needs --principal');
    return undefined;
  }
  for (const [flag, value] of [
    ['--principal', opts.principal],
    ...groups.map((g) => ['--group', g]),
  ]) {
    if (!PRINCIPAL_NAME_RE.test(value as string)) {
      throw new UsageError(`${flag} ${JSON.stringify(value)}`, PRINCIPAL_NAME_RULE);
    }
  }
  return { name: opts.principal, groups: [...new Set(groups)] };
}

function buildCall(name: string, input: string | undefined, opts: ExplainOptions): ToolCall {
  const dot = name.indexOf('.');
  if (dot < 0) {
    if (opts.target !== undefined || opts.data !== undefined) {
      throw new UsageError('--target and --data', 'are for services (domain.service)');
    }
    return { tool: name, input: input === undefined ? {} : parseArg('input', input) };
  }
  const given = input === undefined ? {} : parseArg('input', input);
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new UsageError('a service', 'takes an object {"target": {...}, "data": {...}}');
  }
  const extra = Object.keys(given).filter((k) => k !== 'target' && k !== 'data');
  if (extra.length > 0) {
    throw new UsageError('a service input', `holds only target and data, not ${extra.join(', ')}`);
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
  if (fromJson !== undefined) throw new UsageError(what, `is given twice (JSON and --${what})`);
  return parseArg(`--${what}`, flag);
}

function parseArg(what: string, text: string): unknown {
  const doc = readYaml(text);
  const [issue] = doc.issues;
  if (issue !== undefined) {
    const where = text.includes('\n') ? ` (line ${issue.line}, column ${issue.column})` : '';
    const why = issue.message.replace(/^YAML: /, '');
    throw new UsageError(what, `is not valid JSON or YAML${where}: ${why}`);
  }
  return doc.value;
}
