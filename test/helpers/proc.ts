import { readdirSync, readFileSync } from 'node:fs';

/** Linux clock ticks per second in /proc (USER_HZ, 100 on every mainstream architecture). */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system, every thread) a process has used so far, in ms (/proc). */
export function cpuTimeMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // after the command name, which may hold spaces: `) S ppid ...`; utime is field 14
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1000;
}

/**
 * Resolves once the process has used under `share` of one core over `sampleMs`, polled for
 * up to `timeoutMs`: "it has gone quiet", with no fixed sleep to hope on. Rejects naming the
 * last rate seen.
 */
export async function quietCpu(
  pid: number,
  { share = 0.2, sampleMs = 500, timeoutMs = 15_000 } = {},
): Promise<{ rate: number; afterMs: number }> {
  const started = performance.now();
  let rate = Number.NaN;
  while (performance.now() - started < timeoutMs) {
    const cpu0 = cpuTimeMs(pid);
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, sampleMs));
    rate = (cpuTimeMs(pid) - cpu0) / (performance.now() - t0);
    if (rate < share) return { rate, afterMs: performance.now() - started };
  }
  throw new Error(
    `process ${pid} still used ${(rate * 100).toFixed(0)}% of a core after ${timeoutMs} ms`,
  );
}

/** The pids whose command line holds `marker` (a string no other process has), from /proc. */
export function pidsWithMarker(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue; // gone between the listing and the read
    }
    if (cmdline.split('\0').includes(marker)) found.push(Number(entry));
  }
  return found;
}
