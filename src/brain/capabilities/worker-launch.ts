import { splitCallable } from '../../protocol/index.js';
/**
 * How a tool's worker is started where this brain runs: the words of the "start it" step the
 * brain's replies give for a tool no worker serves. The CLI knows the deployment, the brain
 * does not, so `caesar up` and `caesar brain` hand it in (`startBrain`'s `launch`).
 */
export interface WorkerLaunch {
  /**
   * The tools `caesar legion serve-tool` ships; any other is an operator's own worker.
   * Undefined: unknown, every tool is taken for a shipped one.
   */
  readonly shipped?: readonly string[];
  /**
   * `caesar up` runs this brain: a worker joins its embedded stack through runtime.json, under
   * the identity the stack minted for the tool. Otherwise the brain runs alone (`caesar brain`)
   * against a NATS deployment of the operator's.
   */
  readonly embedded: boolean;
  /** The data dir whose runtime.json the worker reads (absolute). */
  readonly dataDir: string;
  /** The caesar.yaml the brain was given, which the worker must read too (absolute). */
  readonly configFile?: string;
  /** The brain's grant key (its NKEY public key); undefined when it signs no grants. */
  readonly grantKey?: string;
  /** The brain connects with credentials of its own (an NKEY, creds or a token). */
  readonly busAuth: boolean;
}

/** Characters a shell word may hold unquoted. */
const PLAIN = /^[\w@%+=:,./-]+$/;

function shellWord(word: string): string {
  return PLAIN.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The one step that starts `tool`: for a shipped tool, the exact `caesar legion serve-tool`
 * command that joins this brain (from the same host: it reads the data dir's runtime.json for
 * the NATS URL, the stack's identity for the tool and the brain's key); for another, where to
 * read how its worker starts.
 */
export function startStep(launch: WorkerLaunch, callable: string): string {
  // an action is served by its tool's worker (ADR 0092)
  const tool = splitCallable(callable).tool;
  if (launch.shipped !== undefined && !launch.shipped.includes(tool)) {
    return `start the worker that serves ${tool} (it is not a shipped tool; docs/legion.md)`;
  }
  const words = ['caesar', 'legion', 'serve-tool', tool, '--data-dir', launch.dataDir];
  if (launch.configFile !== undefined) words.push('--config', launch.configFile);
  if (launch.embedded) return `start it: \`${words.map(shellWord).join(' ')}\``;
  if (launch.busAuth) {
    // a brain with credentials of its own: the worker needs an identity allowed to serve it
    words.push('--nkey-seed-file', '<its identity>');
    if (launch.grantKey !== undefined) words.push('--trusted-brain', launch.grantKey);
    return (
      `start it: \`${words.map((w) => (w.startsWith('<') ? w : shellWord(w))).join(' ')}\` ` +
      `with an identity from \`caesar legion identity new <name> --tools ${tool}\` ` +
      '(docs/operations.md)'
    );
  }
  // no grant key: this brain signs no grants, so a worker that requires them refuses its calls
  const env = launch.grantKey === undefined ? 'CAESAR_WORKER__REQUIRE_GRANT=false ' : '';
  return `start it: \`${env}${words.map(shellWord).join(' ')}\``;
}

/** What to restart after a setting of `tool` changed: the process that reads it. */
export function restartStep(launch: WorkerLaunch, tool: string): string {
  return launch.embedded ? 'restart `caesar up`' : `restart the ${tool} worker`;
}

/** What to restart after an `llm` setting changed. */
export function brainRestart(launch: WorkerLaunch | undefined): string {
  return launch?.embedded === false ? 'restart `caesar brain`' : 'restart `caesar up`';
}
