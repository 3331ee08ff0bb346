import { readdirSync, readFileSync } from 'node:fs';

/**
 * The processes below `pid`, whatever process group or session they moved to (a child that
 * called `setsid`, a tool's sandbox, a shell's background job): read from `/proc`, children
 * before their own children. Empty where there is no `/proc` (not Linux) or when `pid` has
 * none. A process that left the tree by a double fork (reparented to init) is not found: no
 * tree walk finds it, only a cgroup would.
 */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const [child, parent] of parents()) {
    const list = children.get(parent);
    if (list === undefined) children.set(parent, [child]);
    else list.push(child);
  }
  const out: number[] = [];
  const queue = [pid];
  const seen = new Set(queue);
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/** Each live process and its parent, from `/proc/<pid>/stat`. */
function parents(): [number, number][] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: [number, number][] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const parent = parentOf(name);
    if (parent !== undefined) out.push([Number(name), parent]);
  }
  return out;
}

/**
 * The 4th field of `stat`, after the command name in parentheses (which may itself hold
 * spaces and parentheses: the last `)` ends it).
 */
function parentOf(pid: string): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined; // gone meanwhile
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
}

/** Whether `pid` is alive (and not a zombie waiting for its parent). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

/** Sends `signal` to each pid; one already gone is fine. */
export function signalEach(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}
