import { readdir, readFile, readlink } from 'node:fs/promises';

/** A process listening on a TCP port, as `/proc` shows it. */
export interface PortHolder {
  readonly pid: number;
  /** Its command line, arguments split (bounded: the first 64). */
  readonly argv: readonly string[];
}

/** `st` of a listening socket in `/proc/net/tcp{,6}`. */
const LISTEN = '0A';
/** More processes than a homelab host runs; the walk stops there. */
const MAX_PROCESSES = 4096;

/**
 * The process that listens on TCP `port` (any address), found through `/proc`: the socket's
 * inode in `/proc/net/tcp` and `tcp6`, then the process holding that inode among its file
 * descriptors. Undefined where there is no `/proc` (not Linux), or when the holder belongs
 * to another user (its descriptors cannot be read): the caller then knows the port only.
 */
export async function portHolder(port: number): Promise<PortHolder | undefined> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const inode of await listeningInodes(table, port)) inodes.add(inode);
  }
  if (inodes.size === 0) return undefined;
  let names: string[];
  try {
    names = (await readdir('/proc')).filter((n) => /^\d+$/.test(n)).slice(0, MAX_PROCESSES);
  } catch {
    return undefined;
  }
  for (const name of names) {
    if (await holdsSocket(name, inodes)) {
      return { pid: Number(name), argv: await commandLine(name) };
    }
  }
  return undefined;
}

async function listeningInodes(table: string, port: number): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(table, 'latin1');
  } catch {
    return [];
  }
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const out: string[] = [];
  // "sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …"
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[3] !== LISTEN) continue;
    if (f[1]?.split(':')[1] === hexPort) out.push(f[9]!);
  }
  return out;
}

async function holdsSocket(pid: string, inodes: ReadonlySet<string>): Promise<boolean> {
  let fds: string[];
  try {
    fds = await readdir(`/proc/${pid}/fd`);
  } catch {
    return false; // another user's, or gone meanwhile
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(await readlink(`/proc/${pid}/fd/${fd}`));
      if (m && inodes.has(m[1]!)) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

async function commandLine(pid: string): Promise<string[]> {
  try {
    const raw = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    return raw
      .split('\0')
      .filter((a) => a !== '')
      .slice(0, 64);
  } catch {
    return [];
  }
}
