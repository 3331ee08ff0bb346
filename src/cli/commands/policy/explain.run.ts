import { PolicyEngine, formatExplanation, type ToolCall } from '../../../policy/index.js';
import { readYaml, terminalLine } from '../../../text/index.js';
import {
  consoleIo,
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
  loadPolicy,
  type PolicyCliIo,
} from './load.js';
import type { PolicyFileOptions } from './flags.js';
import { CaesarError } from '../../../errors/index.js';

/** `caesar policy explain`'s flags. */
export interface ExplainOptions extends PolicyFileOptions {
  target?: string;
  data?: string;
  confirmed?: boolean;
}

/** A call that cannot be built from the arguments: exit 2 with the reason. */
class UsageError extends CaesarError {
  declare readonly code: 'usage';
  constructor(message: string) {
    super('usage', message);
  }
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
  const policy = await loadPolicy(opts, io);
  if (policy === null) return EXIT_FAILED;
  const explanation = new PolicyEngine(policy).explain(call, {
    confirmed: opts.confirmed ?? false,
  });
  if (opts.json) io.out(JSON.stringify(explanation.decision, null, 2));
  // a line each, escaped: the reason and the trace quote the call's names and input
  else formatExplanation(explanation).forEach((l) => io.out(terminalLine(l)));
  return EXIT_OK;
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
