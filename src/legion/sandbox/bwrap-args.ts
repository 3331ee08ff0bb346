import type { ResolvedLimits } from './limits.js';

/**
 * The argv of one sandboxed call (ADR 0097), built as data and never as shell text: the
 * program and its arguments end the list after `--`, each one argv entry, so nothing in them
 * is read by a shell, by bubblewrap or by prlimit. Pure: the host's layout and the call's
 * scratch come in as values, which the unit tests give by hand.
 */

/** How a top-level system path appears inside: the host's symlink, or a read-only bind. */
export type SystemEntry =
  | { readonly kind: 'symlink'; readonly path: string; readonly target: string }
  | { readonly kind: 'bind'; readonly path: string };

/** The environment every program sees: nothing of the worker's. */
export const SANDBOX_ENV: Readonly<Record<string, string>> = Object.freeze({
  PATH: '/usr/local/bin:/usr/bin:/bin',
  LANG: 'C.UTF-8',
  HOME: '/tmp',
  TMPDIR: '/tmp',
});

/** Files under /etc a program with network needs to find names, and no others. */
export const NETWORK_ETC_FILES: readonly string[] = Object.freeze([
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/nsswitch.conf',
  '/etc/gai.conf',
  '/etc/services',
  '/etc/protocols',
  '/etc/ssl/certs',
]);

export interface SandboxCall {
  /** Absolute path of the program, inside the sandbox as on the host (under /usr). */
  readonly program: string;
  readonly args: readonly string[];
  /** Host paths bound read-only at the same path. */
  readonly read: readonly string[];
  /** Paths inside the sandbox, each bound read-write to a fresh host directory of the call. */
  readonly write: readonly { readonly inside: string; readonly host: string }[];
  readonly network: boolean;
  readonly limits: ResolvedLimits;
  /** RLIMIT_AS carries the memory limit when no cgroup does. */
  readonly memoryByRlimit: boolean;
}

export interface HostLayout {
  /** `/lib`, `/lib64`, `/bin`, `/sbin` as the host has them (merged /usr or not). */
  readonly system: readonly SystemEntry[];
  /** Absolute path of prlimit (util-linux). */
  readonly prlimit: string;
  /** `/etc/ld.so.cache` and the network files when the host has them. */
  readonly etc: readonly string[];
}

/** bubblewrap's arguments, then prlimit's, then the program's: the whole argv after `bwrap`. */
export function sandboxArgv(call: SandboxCall, host: HostLayout): string[] {
  return [
    ...bwrapArgs(call, host),
    '--',
    host.prlimit,
    ...prlimitArgs(call),
    '--',
    call.program,
    ...call.args,
  ];
}

function bwrapArgs(call: SandboxCall, host: HostLayout): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-all', '--cap-drop', 'ALL'];
  if (call.network) args.push('--share-net');
  args.push('--clearenv');
  for (const [k, v] of Object.entries(SANDBOX_ENV)) args.push('--setenv', k, v);
  args.push('--ro-bind', '/usr', '/usr');
  for (const entry of host.system) {
    if (entry.kind === 'symlink') args.push('--symlink', entry.target, entry.path);
    else args.push('--ro-bind', entry.path, entry.path);
  }
  for (const file of host.etc) {
    if (call.network || !NETWORK_ETC_FILES.includes(file)) args.push('--ro-bind', file, file);
  }
  args.push('--proc', '/proc', '--dev', '/dev');
  args.push('--size', String(Math.max(call.limits.fileBytes, 4096)), '--tmpfs', '/tmp');
  for (const path of call.read) args.push('--ro-bind', path, path);
  for (const w of call.write) args.push('--bind', w.host, w.inside);
  // the root bubblewrap builds is a tmpfs: read-only once the mounts are in place
  args.push('--remount-ro', '/', '--chdir', '/tmp');
  return args;
}

/** RLIMIT_CPU soft at the limit (SIGXCPU) and hard a second later (SIGKILL); no core files. */
function prlimitArgs(call: SandboxCall): string[] {
  const l = call.limits;
  const args = [
    `--cpu=${l.cpuSeconds}:${l.cpuSeconds + 1}`,
    `--fsize=${l.fileBytes}`,
    '--core=0',
    '--nofile=256',
  ];
  if (call.memoryByRlimit) args.push(`--as=${l.memoryMb * 1024 * 1024}`);
  return args;
}
