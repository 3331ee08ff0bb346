import { removeRuntimeFile, writeRuntimeFile, type RuntimeInfoInput } from '../../config/index.js';
import type { EmbeddedNats } from './embedded-nats.js';
import type { BrainReady } from './messages.js';
import { statusLine, type Say } from './status.js';

/**
 * `<data_dir>/runtime.json` while `caesar up` runs (ADR 0035): published once the stack is
 * ready, rewritten when a restarted brain listens on a new URL (`--api-port 0`), removed on
 * the way out. `src/config/runtime-file.ts` owns the file's schema.
 */
export class RuntimeRecord {
  #info: RuntimeInfoInput | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly say: Say,
  ) {}

  /** Writes the file: CLI commands find the stack from now on. */
  async publish(info: RuntimeInfoInput): Promise<void> {
    this.#info = info;
    await writeRuntimeFile(this.dataDir, info);
  }

  /** The brain (re)started at `url`; keeps a published file pointing at it. */
  brainAt(url: string): void {
    if (this.#info === undefined || this.#info.api_url === url) return;
    this.#info = { ...this.#info, api_url: url };
    writeRuntimeFile(this.dataDir, this.#info).catch((err: unknown) =>
      this.say(statusLine('runtime.json', `cannot be rewritten: ${(err as Error).message}`)),
    );
  }

  async remove(): Promise<void> {
    await removeRuntimeFile(this.dataDir);
  }
}

/** What runtime.json says about a stack whose brain sent `brain`. */
export function runtimeInfo(
  brain: BrainReady,
  nats: Pick<EmbeddedNats, 'urls' | 'auth'>,
  dataDir: string,
  tools: readonly string[],
): RuntimeInfoInput {
  return {
    pid: process.pid,
    started_at: new Date().toISOString(),
    data_dir: dataDir,
    nats_url: nats.urls.join(','),
    ...(nats.auth
      ? {
          nats_seed_file: nats.auth.operatorSeedFile,
          tool_seed_files: Object.fromEntries(nats.auth.toolSeedFiles),
        }
      : {}),
    api_url: brain.url,
    ...(brain.grant_key === undefined ? {} : { brain_key: brain.grant_key }),
    token_file: brain.tokens_file,
    token_name: 'operator',
    audit_db: brain.audit_db,
    policy_file: brain.policy_file,
    tools: [...tools],
  };
}
