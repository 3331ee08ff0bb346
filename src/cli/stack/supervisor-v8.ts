import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings of the process that runs `caesar up`, set before the stack's modules load. Its
 * children get theirs on their command line (`stack/children.ts`, ADR 0048); this process is
 * the one the user starts, so its command line is theirs. The supervisor starts the stack
 * and then waits: it never runs hot code, and an idle daemon should not hold memory for it.
 *
 * - **Young generation.** V8 grows it to 16 MB per semi-space while modules load (most of
 *   what is allocated then survives), and an idle supervisor never collects enough to shrink
 *   it again: about 15 MB of RSS held for nothing. The maximum is fixed when the heap is
 *   made, but how much it grows by is read at each growth: a factor of 1 never grows it.
 * - **No optimising or baseline compiler.** Their code and the compiler's own pages cost
 *   the supervisor about 6 MB (measured in docs/benchmarks.md, "Footprint: the memory of caesar up"); the bytecode
 *   interpreter runs its few status lines and restarts just as well. Flags that decide
 *   whether to compile are read at each decision, so they take effect from here on.
 *
 * A setting the operator gave (on the command line or in `NODE_OPTIONS`) is left alone.
 * @returns the flags set
 */
export function leanSupervisorV8(
  nodeFlags: string = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '),
): string[] {
  const set: string[] = [];
  if (!/semi[-_]space/.test(nodeFlags)) set.push('--semi-space-growth-factor=1');
  if (!/\b(no[-_])?(opt|turbofan|maglev|sparkplug|jitless|lite[-_]mode)\b/.test(nodeFlags)) {
    set.push('--no-opt', '--no-sparkplug');
  }
  for (const flag of set) setFlagsFromString(flag);
  return set;
}
