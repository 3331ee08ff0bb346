import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFile } from '../../process/index.js';
import type { PreflightCheck } from '../../protocol/index.js';
import { sandboxArgv, type HostLayout } from './bwrap-args.js';
import { findCgroupBase, makeCallCgroup, type CallCgroup, type CgroupBase } from './cgroup.js';
import { SandboxUnavailableError } from './errors.js';
import { exists, readHostLayout } from './host-layout.js';
import type { ResolvedLimits } from './limits.js';
import { runSandboxed, type CommandResult } from './run.js';

/** What a command tool runs: its program, what it may touch, its limits (ADR 0097). */
export interface SandboxCommand {
  readonly program: string;
  /** The Debian package that ships the program, for the install hint. */
  readonly package?: string;
  readonly read: readonly string[];
  readonly write: readonly string[];
  readonly network: boolean;
  readonly limits: ResolvedLimits;
}

/** Where and how the sandbox runs; tests and the bench set them, tools take the defaults. */
export interface SandboxOptions {
  /** @default '/usr/bin/bwrap' */
  readonly bwrap?: string;
  /** @default '/usr/bin/prlimit' */
  readonly prlimit?: string;
  /** The directory each call's writable scratch is made under. @default os.tmpdir() */
  readonly scratchDir?: string;
  /**
   * How the memory limit is enforced: a cgroup when the worker can make one, else RLIMIT_AS
   * (`auto`); or only one way. @default 'auto'
   */
  readonly memory?: 'auto' | 'cgroup' | 'rlimit';
}

/** Numbers the calls of every sandbox of this process: a call's cgroup and scratch are its own. */
let callSeq = 0;

interface Started {
  readonly host: HostLayout;
  readonly scratch: string;
  readonly cgroup?: CgroupBase;
}

/**
 * A command tool's sandbox: started lazily by the first call (checks, the host's layout, the
 * memory mode, the worker's scratch directory), then each call runs in fresh namespaces with a
 * fresh /tmp and fresh writable directories, removed when the call ends; `stop` ends the
 * calls still running and removes the scratch directory.
 */
export class Sandbox {
  #started: Promise<Started> | undefined;
  #running = new Set<AbortController>();
  readonly #bwrap: string;
  readonly #prlimit: string;

  constructor(
    readonly command: SandboxCommand,
    readonly options: SandboxOptions = {},
  ) {
    this.#bwrap = options.bwrap ?? '/usr/bin/bwrap';
    this.#prlimit = options.prlimit ?? '/usr/bin/prlimit';
  }

  /** The memory mode the sandbox chose; undefined before it started. */
  async memoryMode(): Promise<'cgroup' | 'rlimit'> {
    return (await this.#start()).cgroup === undefined ? 'rlimit' : 'cgroup';
  }

  /** Runs `args` (data, never shell text) in a fresh sandbox; typed errors at each limit. */
  async run(args: readonly string[], signal?: AbortSignal): Promise<CommandResult> {
    const started = await this.#start();
    const id = `call-${process.pid}-${++callSeq}`;
    const callDir = await mkdtemp(join(started.scratch, `${id}-`));
    const controller = new AbortController();
    this.#running.add(controller);
    const abort = (): void => controller.abort();
    signal?.addEventListener('abort', abort, { once: true });
    if (signal?.aborted === true) abort();
    let cgroup: CallCgroup | undefined;
    try {
      if (started.cgroup !== undefined) {
        cgroup = await makeCallCgroup(started.cgroup, `caesar-${id}`, this.command.limits);
      }
      const write = await Promise.all(
        this.command.write.map(async (inside, i) => {
          const host = join(callDir, `w${i}`);
          await mkdir(host);
          return { inside, host };
        }),
      );
      const argv = sandboxArgv(
        {
          program: this.command.program,
          args,
          read: this.command.read,
          write,
          network: this.command.network,
          limits: this.command.limits,
          memoryByRlimit: cgroup === undefined,
        },
        started.host,
      );
      return await runSandboxed({
        bwrap: this.#bwrap,
        argv,
        program: this.command.program,
        limits: this.command.limits,
        ...(cgroup === undefined ? {} : { cgroup }),
        signal: controller.signal,
      });
    } finally {
      signal?.removeEventListener('abort', abort);
      this.#running.delete(controller);
      await cgroup?.remove();
      await rm(callDir, { recursive: true, force: true });
    }
  }

  /** Ends every call still running and removes the scratch directory. Safe to call twice. */
  async stop(): Promise<void> {
    for (const c of this.#running) c.abort();
    const started = this.#started;
    this.#started = undefined;
    if (started === undefined) return;
    const s = await started.catch(() => undefined);
    if (s !== undefined) await rm(s.scratch, { recursive: true, force: true });
  }

  /**
   * The preflight's checks: bubblewrap makes namespaces, prlimit and the program are there;
   * then (starting the sandbox) how the memory limit is enforced, so an operator sees when
   * it is not typed (ADR 0097).
   */
  async checks(): Promise<PreflightCheck[]> {
    const problem = await this.#problem().catch((err: Error) => err.message);
    const program = this.command.program;
    const sandbox = {
      name: 'sandbox',
      ok: problem === undefined,
      detail: problem ?? `bubblewrap runs ${program}`,
    };
    if (problem !== undefined) return [sandbox];
    const memory = await this.#start().then(
      (s) => ({
        ok: true,
        detail:
          s.cgroup === undefined
            ? `RLIMIT_AS (${this.command.limits.memoryMb} MB): enforced, but a call past it ends as the program does, with no memory error of its own; give the worker a cgroup for typed OOM kills`
            : `cgroup v${s.cgroup.version} (${this.command.limits.memoryMb} MB): a call past it is killed and answers sandbox_memory_limit`,
      }),
      (err: Error) => ({ ok: false, detail: err.message }),
    );
    return [sandbox, { name: 'sandbox memory limit', ...memory }];
  }

  #start(): Promise<Started> {
    this.#started ??= this.#begin();
    const started = this.#started;
    // a failed start is tried again by the next call
    started.catch(() => {
      if (this.#started === started) this.#started = undefined;
    });
    return started;
  }

  async #begin(): Promise<Started> {
    const problem = await this.#problem();
    if (problem !== undefined) {
      throw new SandboxUnavailableError({ program: this.command.program, reason: problem });
    }
    const host = await readHostLayout(this.#prlimit);
    const mode = this.options.memory ?? 'auto';
    const base = mode === 'rlimit' ? undefined : await findCgroupBase();
    if (mode === 'cgroup' && (base === undefined || 'reason' in base)) {
      throw new SandboxUnavailableError({
        program: this.command.program,
        reason: base === undefined ? 'no cgroup' : base.reason,
      });
    }
    const scratchRoot = this.options.scratchDir ?? tmpdir();
    const scratch = await mkdtemp(join(scratchRoot, 'caesar-sandbox-'));
    return {
      host,
      scratch,
      ...(base === undefined || 'reason' in base ? {} : { cgroup: base }),
    };
  }

  /** What stops the sandbox from running the program, in words naming the fix; undefined if nothing. */
  async #problem(): Promise<string | undefined> {
    if (!(await exists(this.#bwrap))) {
      return `${this.#bwrap} is not installed: apt-get install bubblewrap`;
    }
    if (!(await exists(this.#prlimit))) {
      return `${this.#prlimit} is not installed: apt-get install util-linux`;
    }
    const program = this.command.program;
    if (!(await exists(program))) {
      const pkg = this.command.package;
      return `${program} is not installed${pkg === undefined ? '' : `: apt-get install ${pkg}`}`;
    }
    const probe = sandboxArgv(
      {
        program: '/usr/bin/true',
        args: [],
        read: [],
        write: [],
        network: false,
        limits: this.command.limits,
        memoryByRlimit: true,
      },
      await readHostLayout(this.#prlimit),
    );
    try {
      await runFile(this.#bwrap, probe, { timeoutMs: 5000, env: { PATH: '/usr/bin:/bin' } });
      return undefined;
    } catch (err) {
      const said = String((err as { stderr?: string }).stderr ?? (err as Error).message).trim();
      return `bubblewrap cannot make namespaces here (${said.slice(0, 200)}): allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or run the worker where it may`;
    }
  }
}
