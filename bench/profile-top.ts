/**
 * The top self-time functions of a `node --cpu-prof` profile, as a share of the busy
 * (non-idle) time: the tables of docs/benchmarks.md "Issue 30: the governed call".
 *
 *   node dist/bench/profile-top.js /tmp/prof/CPU.*.cpuprofile [how many, default 25]
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time per function (name, file, line), microseconds, idle left out; and the busy sum. */
function selfTimes(profile: Profile): { busy: number; top: [string, number][] } {
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const byFunction = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const f = frames.get(id);
    if (f === undefined || f.functionName === '(idle)') return;
    const file = f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, '');
    const key = `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const busy = [...byFunction.values()].reduce((a, b) => a + b, 0);
  return { busy, top: [...byFunction].sort((a, b) => b[1] - a[1]) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [path = '', count = '25'] = process.argv.slice(2);
  const { busy, top } = selfTimes(JSON.parse(readFileSync(path, 'utf8')) as Profile);
  console.log(`busy ${(busy / 1e6).toFixed(2)} s`);
  for (const [name, us] of top.slice(0, Number(count))) {
    console.log(`${((100 * us) / busy).toFixed(1).padStart(5)}%  ${name}`);
  }
}
