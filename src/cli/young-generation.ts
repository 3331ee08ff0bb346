import { setFlagsFromString } from 'node:v8';

/**
 * Keeps V8's young generation at its first size in the process that runs `caesar up`. V8
 * grows it to 16 MB per semi-space while modules load (most of what is allocated then
 * survives), and an idle supervisor never collects enough to shrink it again: about 15 MB
 * of RSS held for nothing. Its children get `--max-semi-space-size=1` on their command
 * line (ADR 0048); this process is the one the user starts, so its command line is theirs,
 * and the maximum is fixed when the heap is made. How much it grows by is read at each
 * growth, so it can be set now, before the command's modules load: a factor of 1 never
 * grows it. An operator's own young-generation flag (on the command line or in
 * `NODE_OPTIONS`) is left alone.
 */
export function keepYoungGenerationSmall(
  nodeFlags: string = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '),
): boolean {
  if (/semi[-_]space/.test(nodeFlags)) return false;
  setFlagsFromString('--semi-space-growth-factor=1');
  return true;
}
