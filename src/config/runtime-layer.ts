import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { getIn, mergeLayers, UNSET, type ConfigLayer } from './layer.js';
import { lookupRunningStack, type OperatorSeedLookup, type RunningStack } from './runtime-file.js';
import { ConfigSchema } from './schema.js';

/**
 * `<data_dir>/runtime.json` as a config layer (ADR 0039), for CLI commands that look for a
 * running stack: below caesar.yaml, env and flags, above the built-in defaults. It supplies
 * the running stack's
 *
 * - `bus.url` and the operator's seed as `bus.nkey_seed_file`: the one `caesar up` minted
 *   (`nats_seed_file`), else, for a `caesar brain` run alone, `operator_seed_file` when that
 *   file exists (`operator.nk` beside the brain's seed, ADR 0072). The two go together: the
 *   seed is offered only with its server's URL, so it never reaches a server a higher source
 *   named; a higher source's auth key still wins (the auth rule of ADR 0004);
 * - `audit.file` and `policy.file`.
 *
 * Each value's source is the file's path, so `loadConfigWithSources()` says where it came
 * from. A missing or stale file is a layer that sets nothing.
 */
function runtimeLayer(stack: RunningStack, seed: OperatorSeedLookup | undefined): ConfigLayer {
  const sourceOf = () => stack.file;
  const info = stack.info;
  if (info === undefined) return { value: {}, issues: [], sourceOf };
  const value: Record<string, unknown> = {
    audit: { file: info.audit_db },
    policy: { file: info.policy_file },
  };
  if (seed?.offered) {
    const file = seed.file;
    value.bus = { url: info.nats_url, ...(file === undefined ? {} : { nkey_seed_file: file }) };
  }
  return { value, issues: [], sourceOf };
}

/**
 * Reads the runtime.json of the data dir the other layers name (else the built-in
 * `./var`) and returns it with its layer, and with what it offered as the client's NATS
 * identity (`operatorSeed`, for the message when the server refuses the client).
 * @throws {RuntimeFileError} when the file exists but is malformed.
 */
export async function readRuntimeLayer(
  above: readonly ConfigLayer[],
  cwd: string,
): Promise<{ stack: RunningStack; layer: ConfigLayer }> {
  const found = await lookupRunningStack(dataDirOf(above, cwd));
  const offered = !above.some((l) => setsKey(l, ['bus', 'url']));
  const operatorSeed = found.info === undefined ? undefined : await lookForSeed(found, offered);
  const stack = operatorSeed === undefined ? found : { ...found, operatorSeed };
  return { stack, layer: runtimeLayer(stack, operatorSeed) };
}

/**
 * The operator's seed a running stack offers, with where it was looked for: the one
 * `caesar up` minted (`nats_seed_file`), else the `operator.nk` a lone brain's runtime.json
 * names (`operator_seed_file`), when that file is there now. Nothing when a higher source
 * named the NATS URL: the seed goes with its own server only.
 */
async function lookForSeed(stack: RunningStack, offered: boolean): Promise<OperatorSeedLookup> {
  const info = stack.info!;
  if (!offered) return { offered, looked: [] };
  if (info.nats_seed_file !== undefined) {
    return { offered, file: info.nats_seed_file, looked: [info.nats_seed_file] };
  }
  const beside = info.operator_seed_file;
  if (beside === undefined) return { offered, looked: [] };
  const there = await stat(beside).then(
    (s) => s.isFile(),
    () => false,
  );
  return there ? { offered, file: beside, looked: [beside] } : { offered, looked: [beside] };
}

function setsKey(layer: ConfigLayer, path: readonly string[]): boolean {
  const v = getIn(layer.value, path);
  return v !== undefined && v !== UNSET;
}

/** The data dir the layers name, before validation; a value of the wrong type is left to it. */
function dataDirOf(layers: readonly ConfigLayer[], cwd: string): string {
  const named = mergeLayers(layers.map((l) => l.value)).data_dir;
  const dir =
    typeof named === 'string' && named !== ''
      ? named
      : ConfigSchema.shape.data_dir.parse(undefined);
  return resolve(cwd, dir);
}
