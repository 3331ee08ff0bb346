import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { errorClass } from '../errors/index.js';
import { writeFileAtomic } from '../files/index.js';
import { fieldIssuesOf, summariseFieldIssues } from '../protocol/field-issues.js';
import { jsonRefusal, readJsonText } from '../text/index.js';

/**
 * `<data-dir>/runtime.json`: how CLI commands find the stack `caesar up` runs (ADR 0035).
 * `caesar up` writes it once everything is ready and removes it on the way out; readers
 * treat a file whose `pid` is gone as stale. It names secrets (the token and seed files) but
 * holds none, and is still written 0600. This module owns the file's schema; the config
 * loader reads it as a layer (`runtime-layer.ts`, ADR 0039).
 */
const RUNTIME_FILE_NAME = 'runtime.json';

/** Larger than any runtime file `caesar up` writes; a bigger one is refused unread. */
const MAX_RUNTIME_FILE_BYTES = 64 * 1024;

const nonEmpty = z.string().min(1, 'expected a non-empty string');

/** Version 1 of the file. New optional fields may be added; unknown ones are ignored. */
const RuntimeInfoSchema = z.object({
  v: z.literal(1),
  /** The `caesar up` process; the file is stale once it is gone. */
  pid: z.number().int().positive(),
  /** ISO-8601 UTC. */
  started_at: z.iso.datetime(),
  /** Absolute path of the data directory the stack runs in. */
  data_dir: nonEmpty,
  /**
   * The embedded nats-server, e.g. `nats://127.0.0.1:4222`, or with `caesar up --cluster`
   * every server of the cluster, comma-separated (as `bus.url` takes them).
   */
  nats_url: nonEmpty,
  /**
   * NKEY seed file of the operator identity `caesar up` minted for this run (ADR 0038);
   * absent when `embedded.nats_config` names the operator's own server config.
   */
  nats_seed_file: nonEmpty.optional(),
  /**
   * Where a client on this host looks for the operator's NKEY seed when `nats_seed_file` is
   * absent: `operator.nk` in the directory of the brain's own seed file, written by a
   * `caesar brain` run alone with an NKEY (ADR 0072). Used only if it exists when the client
   * connects; the brain never reads it.
   */
  operator_seed_file: nonEmpty.optional(),
  /**
   * The public key the brain signs dispatch grants with (ADR 0052): a worker joining the
   * stack (`legion serve-tool`) trusts it. Absent when the brain has no NKEY identity.
   */
  brain_key: nonEmpty.optional(),
  /** Base URL of the brain's HTTP API, e.g. `http://127.0.0.1:8420`. */
  api_url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }),
  /** YAML file of API tokens (`tokens: [{name, token, scopes?, principal?, groups?}]`, mode 0600). */
  token_file: nonEmpty,
  /** The token CLI commands use by default (`operator` for `caesar up`). */
  token_name: nonEmpty,
  /** SQLite file of the audit log. */
  audit_db: nonEmpty,
  /** The policy file the brain enforces. */
  policy_file: nonEmpty,
  /** The tools `caesar up` started workers for. */
  tools: z.array(z.string()),
  /**
   * NKEY seed file of each shipped tool's worker identity `caesar up` minted, the tools it
   * did not start too: `caesar legion serve-tool <tool>` in the same data dir serves under it.
   */
  tool_seed_files: z.record(z.string(), nonEmpty).optional(),
});
export type RuntimeInfo = z.infer<typeof RuntimeInfoSchema>;

/** What `writeRuntimeFile` takes: everything but the version, which it stamps. */
export type RuntimeInfoInput = Omit<RuntimeInfo, 'v'>;

/** runtime.json exists but cannot be used: unreadable, not JSON, or not a v1 runtime file. */
export const RuntimeFileError = errorClass(
  'runtime_file_invalid',
  (file: string, reason: string, options?: { cause?: unknown }) => ({
    params: { file, reason },
    /** The file at fault. */
    fields: { file },
    options,
  }),
);
export type RuntimeFileError = InstanceType<typeof RuntimeFileError>;

export function runtimeFilePath(dataDir: string): string {
  return join(dataDir, RUNTIME_FILE_NAME);
}

/**
 * Writes `<dataDir>/runtime.json` atomically (a 0600 temp file in the same directory,
 * fsynced, then renamed over the old one), so readers see the old file or the new one,
 * never half of one. Creates `dataDir` when missing.
 * @returns the path written.
 * @throws {Error} when `info` does not match {@link RuntimeInfoSchema} (a bug in the caller).
 */
export async function writeRuntimeFile(dataDir: string, info: RuntimeInfoInput): Promise<string> {
  const checked = RuntimeInfoSchema.parse({ ...info, v: 1 });
  const file = runtimeFilePath(dataDir);
  await writeFileAtomic(file, `${JSON.stringify(checked, null, 2)}\n`, 0o600);
  return file;
}

interface ReadRuntimeFileOptions {
  /**
   * Called when the file names a process that is gone, with a sentence the caller can
   * print ("stale runtime.json from pid 123; is `caesar up` running?").
   */
  onStale?: (reason: string, stale: RuntimeInfo) => void;
}

/**
 * The running stack described by `<dataDir>/runtime.json`.
 * @returns undefined when there is no file, or when its `pid` is no longer alive (stale;
 *   `opts.onStale` hears why).
 * @throws {RuntimeFileError} naming the file when it is unreadable, too large, not JSON, or
 *   not a version 1 runtime file.
 */
export async function readRuntimeFile(
  dataDir: string,
  opts: ReadRuntimeFileOptions = {},
): Promise<RuntimeInfo | undefined> {
  const file = runtimeFilePath(dataDir);
  const text = await readBounded(file);
  if (text === undefined) return undefined;
  const info = parseRuntimeInfo(file, text);
  if (!isAlive(info.pid)) {
    opts.onStale?.(
      `stale ${RUNTIME_FILE_NAME} from pid ${info.pid}; is \`caesar up\` running?`,
      info,
    );
    return undefined;
  }
  return info;
}

/**
 * What a running stack's runtime.json offered a client as its NATS identity, and where the
 * config loader looked (ADR 0072): for the message when the server refuses the client.
 */
export interface OperatorSeedLookup {
  /** False when a higher source named `bus.url`: runtime.json then offers neither URL nor seed. */
  readonly offered: boolean;
  /** The seed file offered as `bus.nkey_seed_file`; undefined when none was found. */
  readonly file?: string;
  /** The seed files looked for, in order (`nats_seed_file`, else `operator_seed_file`). */
  readonly looked: readonly string[];
}

/** What `<data_dir>/runtime.json` says about a running stack. */
export interface RunningStack {
  /** `<data_dir>/runtime.json`. */
  readonly file: string;
  /** The live stack; undefined when there is no file or it is stale. */
  readonly info?: RuntimeInfo;
  /**
   * Why `info` is undefined, as a sentence a command can print as a hint: "no runtime.json
   * in /srv/var; is `caesar up` running?", "stale runtime.json from pid 123; …".
   */
  readonly missing?: string;
  /** Set by the config loader when it read the file as a layer of a live stack. */
  readonly operatorSeed?: OperatorSeedLookup;
}

/**
 * Looks for the stack running in `dataDir`: {@link readRuntimeFile}, with the reason when
 * there is none.
 * @throws {RuntimeFileError} as {@link readRuntimeFile}.
 */
export async function lookupRunningStack(dataDir: string): Promise<RunningStack> {
  const file = runtimeFilePath(dataDir);
  let missing = `no ${RUNTIME_FILE_NAME} in ${dataDir}; is \`caesar up\` running?`;
  const info = await readRuntimeFile(dataDir, { onStale: (reason) => (missing = reason) });
  return info === undefined ? { file, missing } : { file, info };
}

/** Removes `<dataDir>/runtime.json`; no error when it is already gone. */
export async function removeRuntimeFile(dataDir: string): Promise<void> {
  await rm(runtimeFilePath(dataDir), { force: true });
}

async function readBounded(file: string): Promise<string | undefined> {
  try {
    const st = await stat(file);
    if (!st.isFile()) throw new RuntimeFileError(file, 'not a regular file');
    if (st.size > MAX_RUNTIME_FILE_BYTES) {
      throw new RuntimeFileError(file, `too large (${st.size} bytes) for a runtime file`);
    }
    return await readFile(file, 'utf8');
  } catch (err) {
    if (err instanceof RuntimeFileError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new RuntimeFileError(file, `cannot read: ${(err as Error).message}`, { cause: err });
  }
}

function parseRuntimeInfo(file: string, text: string): RuntimeInfo {
  const read = readJsonText(text);
  if (!read.ok) throw new RuntimeFileError(file, jsonRefusal(read));
  const raw = read.value;
  const v = (raw as { v?: unknown } | null)?.v;
  if (typeof v === 'number' && v !== 1) {
    throw new RuntimeFileError(file, `runtime file version ${v} is not supported (expected 1)`);
  }
  const parsed = RuntimeInfoSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = summariseFieldIssues(fieldIssuesOf(parsed.error));
    throw new RuntimeFileError(file, `not a valid runtime file (${issues})`);
  }
  return parsed.data;
}

/** True unless signalling the pid says there is no such process (EPERM means it exists). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
