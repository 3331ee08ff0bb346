import { access, lstat, readlink } from 'node:fs/promises';
import { NETWORK_ETC_FILES, type HostLayout, type SystemEntry } from './bwrap-args.js';

/** Top-level system paths a dynamically linked program may need, besides /usr. */
const SYSTEM_PATHS = ['/bin', '/sbin', '/lib', '/lib64', '/lib32', '/libx32'];

/** The host's layout as the sandbox mirrors it: merged /usr (symlinks) or real directories. */
export async function readHostLayout(prlimit: string): Promise<HostLayout> {
  const system: SystemEntry[] = [];
  for (const path of SYSTEM_PATHS) {
    const stat = await lstat(path).catch(() => undefined);
    if (stat === undefined) continue;
    if (stat.isSymbolicLink()) system.push({ kind: 'symlink', path, target: await readlink(path) });
    else if (stat.isDirectory()) system.push({ kind: 'bind', path });
  }
  const etc: string[] = [];
  for (const file of ['/etc/ld.so.cache', ...NETWORK_ETC_FILES]) {
    if (await exists(file)) etc.push(file);
  }
  return { system, prlimit, etc };
}

export async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
