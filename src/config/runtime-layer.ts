import { resolve } from 'node:path';
import { getIn, mergeLayers, UNSET, type ConfigLayer } from './layer.js';
import { lookupRunningStack, type RunningStack } from './runtime-file.js';
import { ConfigSchema } from './schema.js';

/**
 * `<data_dir>/runtime.json` as a config layer (ADR 0039), for CLI commands that look for a
 * running stack: below caesar.yaml, env and flags, above the built-in defaults. It supplies
 * the running stack's
 *
 * - `bus.url` and, when `caesar up` minted identities, `bus.nkey_seed_file` (the operator's
 *   seed). The two go together: the seed is offered only with its server's URL, so it never
 *   reaches a server a higher source named; a higher source's auth key still wins (the auth
 *   rule of ADR 0004);
 * - `audit.file` and `policy.file`.
 *
 * Each value's source is the file's path, so `loadConfigWithSources()` says where it came
 * from. A missing or stale file is a layer that sets nothing.
 */
function runtimeLayer(stack: RunningStack, above: readonly ConfigLayer[]): ConfigLayer {
  const sourceOf = () => stack.file;
  const info = stack.info;
  if (info === undefined) return { value: {}, issues: [], sourceOf };
  const value: Record<string, unknown> = {
    audit: { file: info.audit_db },
    policy: { file: info.policy_file },
  };
  if (!above.some((l) => setsKey(l, ['bus', 'url']))) {
    const seed = info.nats_seed_file;
    value.bus = { url: info.nats_url, ...(seed === undefined ? {} : { nkey_seed_file: seed }) };
  }
  return { value, issues: [], sourceOf };
}

/**
 * Reads the runtime.json of the data dir the other layers name (else the built-in
 * `./var`) and returns it with its layer.
 * @throws {RuntimeFileError} when the file exists but is malformed.
 */
export async function readRuntimeLayer(
  above: readonly ConfigLayer[],
  cwd: string,
): Promise<{ stack: RunningStack; layer: ConfigLayer }> {
  const stack = await lookupRunningStack(dataDirOf(above, cwd));
  return { stack, layer: runtimeLayer(stack, above) };
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
