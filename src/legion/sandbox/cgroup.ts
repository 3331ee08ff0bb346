import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Per-call cgroups for a sandbox's memory (and, on cgroup v2, process) limit (ADR 0097). The
 * worker makes one below its own cgroup when the kernel lets it: cgroup v2 with the memory
 * controller already enabled for its children (a delegated systemd unit), or a writable
 * cgroup v1 memory hierarchy (root on an older host). Otherwise there is none, and the limit
 * falls to RLIMIT_AS. The parsing of /proc files is pure and unit-tested.
 */

export interface CgroupBase {
  readonly version: 1 | 2;
  /** The worker's own cgroup directory, under which each call's is made. */
  readonly dir: string;
  /** On cgroup v1, the worker's directory in the pids hierarchy, when it can make one there. */
  readonly pidsDir?: string;
}

/** One mount of /proc/self/mountinfo that matters here. */
interface CgroupMount {
  readonly version: 1 | 2;
  readonly root: string;
  readonly mountPoint: string;
}

type Found = { v2?: CgroupMount; v1Memory?: CgroupMount; v1Pids?: CgroupMount };

/** The cgroup2 mount and the v1 memory and pids mounts, from /proc/self/mountinfo's text. */
export function cgroupMounts(mountinfo: string): Found {
  const found: Found = {};
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (left === undefined || right === undefined) continue;
    const fields = left.split(' ');
    const [fsType, , superOptions = ''] = right.split(' ');
    const root = fields[3];
    const mountPoint = fields[4];
    if (root === undefined || mountPoint === undefined) continue;
    if (fsType === 'cgroup2' && found.v2 === undefined) found.v2 = { version: 2, root, mountPoint };
    const options = superOptions.split(',');
    if (fsType === 'cgroup' && options.includes('memory')) {
      found.v1Memory ??= { version: 1, root, mountPoint };
    }
    if (fsType === 'cgroup' && options.includes('pids')) {
      found.v1Pids ??= { version: 1, root, mountPoint };
    }
  }
  return found;
}

/** The worker's cgroup path in the v2 hierarchy and in the v1 memory one, from /proc/self/cgroup. */
export function cgroupPaths(procCgroup: string): {
  v2?: string;
  v1Memory?: string;
  v1Pids?: string;
} {
  const paths: { v2?: string; v1Memory?: string; v1Pids?: string } = {};
  for (const line of procCgroup.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (m === null) continue;
    const [, id, controllers = '', path = ''] = m;
    if (id === '0' && controllers === '') paths.v2 = path;
    else {
      if (controllers.split(',').includes('memory')) paths.v1Memory = path;
      if (controllers.split(',').includes('pids')) paths.v1Pids = path;
    }
  }
  return paths;
}

/** The directory of `path` (as /proc/self/cgroup says it) under `mount`; undefined if outside. */
export function cgroupDir(mount: CgroupMount, path: string): string | undefined {
  if (mount.root === '/') return join(mount.mountPoint, path);
  if (path !== mount.root && !path.startsWith(`${mount.root}/`)) return undefined;
  return join(mount.mountPoint, path.slice(mount.root.length));
}

/** The cgroup the worker may make call cgroups under, or why there is none. */
export async function findCgroupBase(): Promise<CgroupBase | { readonly reason: string }> {
  const [mountinfo, procCgroup] = await Promise.all([
    readFile('/proc/self/mountinfo', 'utf8').catch(() => ''),
    readFile('/proc/self/cgroup', 'utf8').catch(() => ''),
  ]);
  const mounts = cgroupMounts(mountinfo);
  const paths = cgroupPaths(procCgroup);
  if (mounts.v2 !== undefined && paths.v2 !== undefined) {
    const dir = cgroupDir(mounts.v2, paths.v2);
    const enabled =
      dir && (await readFile(join(dir, 'cgroup.subtree_control'), 'utf8').catch(() => ''));
    if (dir !== undefined && enabled !== undefined && enabled.split(/\s+/).includes('memory')) {
      return usable({ version: 2, dir });
    }
  }
  if (mounts.v1Memory !== undefined && paths.v1Memory !== undefined) {
    const dir = cgroupDir(mounts.v1Memory, paths.v1Memory);
    const pids =
      mounts.v1Pids === undefined || paths.v1Pids === undefined
        ? undefined
        : cgroupDir(mounts.v1Pids, paths.v1Pids);
    const pidsDir = pids === undefined ? undefined : await usableDir(pids);
    if (dir !== undefined) {
      return usable({ version: 1, dir, ...(pidsDir === undefined ? {} : { pidsDir }) });
    }
  }
  return {
    reason: 'no cgroup v2 with the memory controller delegated, no writable v1 memory cgroup',
  };
}

/** A base is usable when a child cgroup can be made and removed in it. */
async function usable(base: CgroupBase): Promise<CgroupBase | { readonly reason: string }> {
  const probe = join(base.dir, `caesar-probe-${process.pid}`);
  try {
    await mkdir(probe);
    await rmdir(probe);
    return base;
  } catch (err) {
    return {
      reason: `cannot make a cgroup in ${base.dir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    };
  }
}

/** `dir` when a child cgroup can be made and removed in it. */
async function usableDir(dir: string): Promise<string | undefined> {
  const probe = join(dir, `caesar-probe-${process.pid}`);
  try {
    await mkdir(probe);
    await rmdir(probe);
    return dir;
  } catch {
    return undefined;
  }
}

/** One call's cgroup: its limits set, its `cgroup.procs` files for the sandbox to enter. */
export interface CallCgroup {
  readonly dir: string;
  /** Every hierarchy's `cgroup.procs` the sandbox enters (v1: memory, and pids when usable). */
  readonly procsFiles: readonly string[];
  /** How many OOM kills the kernel made in it. */
  oomKills(): Promise<number>;
  /** Kills what is left in it and removes it. */
  remove(): Promise<void>;
}

export async function makeCallCgroup(
  base: CgroupBase,
  name: string,
  limits: { readonly memoryMb: number; readonly processes: number },
): Promise<CallCgroup> {
  const dir = join(base.dir, name);
  await mkdir(dir);
  const bytes = String(limits.memoryMb * 1024 * 1024);
  if (base.version === 2) {
    await writeFile(join(dir, 'memory.max'), bytes);
    await writeFile(join(dir, 'memory.swap.max'), '0').catch(() => undefined);
    await writeFile(join(dir, 'pids.max'), String(limits.processes)).catch(() => undefined);
  } else {
    await writeFile(join(dir, 'memory.limit_in_bytes'), bytes);
    // no swap either, where the kernel accounts it (memsw must not be below the limit)
    await writeFile(join(dir, 'memory.memsw.limit_in_bytes'), bytes).catch(() => undefined);
  }
  const pidsDir = base.pidsDir === undefined ? undefined : join(base.pidsDir, name);
  if (pidsDir !== undefined) {
    await mkdir(pidsDir);
    await writeFile(join(pidsDir, 'pids.max'), String(limits.processes));
  }
  const dirs = pidsDir === undefined ? [dir] : [dir, pidsDir];
  return {
    dir,
    procsFiles: dirs.map((d) => join(d, 'cgroup.procs')),
    oomKills: async () =>
      oomKillsOf(
        await readFile(
          join(dir, base.version === 2 ? 'memory.events' : 'memory.oom_control'),
          'utf8',
        ).catch(() => ''),
      ),
    remove: async () => {
      for (const d of dirs) await removeCgroup(d);
    },
  };
}

/** `oom_kill N` of memory.events (v2) or memory.oom_control (v1). */
export function oomKillsOf(text: string): number {
  const m = /^oom_kill (\d+)$/m.exec(text);
  return m === null ? 0 : Number(m[1]);
}

async function removeCgroup(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const procs = (await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => ''))
      .split('\n')
      .filter((p) => p !== '')
      .map(Number);
    for (const pid of procs) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    try {
      await rmdir(dir);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      // the kernel frees a cgroup shortly after its last process is reaped
      await new Promise((r) => setTimeout(r, Math.min(2 ** attempt, 20)));
    }
  }
}
