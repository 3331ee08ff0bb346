import {
  CALLABLE_NAME_PATTERN,
  describeFirstIssue,
  splitCallable,
  InstanceIdSchema,
  SRV_METADATA,
  parseHostCapacity,
  parseWorkerRestarts,
  readWireJson,
  SrvInfoSchema,
  ToolSpecSchema,
  serviceName,
  specSha256,
  toolFromServiceName,
  type SrvInfo,
  type HostCapacity,
  type ToolSpec,
  type WorkerRestarts,
} from '../../protocol/index.js';
import { NKEY_USER_PUBLIC_KEY } from '../../protocol/nkey-shape.js';
import { REPLY_DH_DECLARATION } from '../../protocol/reply-mac.js';

/** One tool instance as discovery sees it: identity, where it runs, and its own spec. */
export interface ToolInstanceInfo {
  /** ADR-32 service instance id (also the `worker.id` in its replies). */
  readonly id: string;
  /** The callable it serves: a tool's name, or an action's `tool.action` (ADR 0092). */
  readonly tool: string;
  /** ADR-32 service name, `caesar-<tool>` (an action's is its tool's, ADR 0092). */
  readonly service: string;
  readonly host: string;
  /** The instance's ToolSpec version. */
  readonly version: string;
  readonly specSha256: string;
  /** The spec this instance announced (instances of one tool may run different versions). */
  readonly spec: ToolSpec;
  /**
   * The public key (`U…`) that signs its replies (ADR 0060), as its own INFO subject declared
   * it; undefined for a worker of a version before signed replies.
   */
  readonly replyKey?: string;
  /**
   * Its X25519 key signed by the reply key (`caesar.reply_dh`, ADR 0105), as its own INFO
   * subject declared it; checked against the reply key when a MACed reply first names it.
   * Undefined for a worker of a version before MACed replies: it signs each one (v1).
   */
  readonly replyDh?: string;
  /**
   * Whether it checks v2 grants, MACed with the key agreed with its `replyDh` (`caesar.grants`
   * lists `v2`, ADR 0108); false for a worker from before, which takes v1 grants only.
   */
  readonly grantV2?: boolean;
  /**
   * Its restarts under `caesar up` (count, last reason, when), as its metadata declared them
   * (ADR 0070); undefined on a first start or when the value was malformed.
   */
  readonly restarts?: WorkerRestarts;
  /** Why a declared `caesar.restarts` value was ignored, for the registry's debug line. */
  readonly restartsIgnored?: string;
  /**
   * What its host has (vCPUs, memory, GPUs found), as its metadata declared it (ADR 0091);
   * undefined for a worker of a version before it, or when the value was malformed.
   */
  readonly capacity?: HostCapacity;
  /** Why a declared `caesar.capacity` value was ignored, for the registry's debug line. */
  readonly capacityIgnored?: string;
}

/** The outcome of reading one `$SRV.INFO` reply. */
type ParsedInfo =
  | { kind: 'instance'; instance: ToolInstanceInfo }
  /** Another application's service: not ours to judge. */
  | { kind: 'foreign' }
  | { kind: 'invalid'; reason: string };

const MAX_CACHED_SPECS = 256;

/**
 * Specs already checked, by sha256. A sweep sees the same few specs over and over; the
 * cache spares re-parsing and re-hashing them, and lets a hello whose spec is known skip
 * the INFO round trip.
 */
export class SpecCache {
  readonly #specs = new Map<string, ToolSpec>();

  get(sha: string): ToolSpec | undefined {
    return this.#specs.get(sha);
  }

  /** Parses `json` as a ToolSpec and checks it hashes to `sha`; caches and returns it. */
  admit(sha: string, json: string): ToolSpec | string {
    const known = this.#specs.get(sha);
    if (known) return known;
    const read = readWireJson(json);
    if ('why' in read) return `spec metadata is ${read.why}`;
    const parsed = ToolSpecSchema.safeParse(read.value);
    if (!parsed.success) return `spec fails ToolSpecSchema: ${describeFirstIssue(parsed.error)}`;
    if (specSha256(parsed.data) !== sha) return 'spec does not match its sha256';
    if (this.#specs.size >= MAX_CACHED_SPECS) {
      const oldest = this.#specs.keys().next().value;
      if (oldest !== undefined) this.#specs.delete(oldest);
    }
    const spec = deepFreeze(parsed.data);
    this.#specs.set(sha, spec);
    return spec;
  }
}

/** Specs are shared by every instance and every snapshot handed out: nobody may edit one. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Reads a `$SRV.INFO` reply; a CAESAR service must carry a spec that hashes to its sha. */
export function parseInfoReply(data: Uint8Array, specs: SpecCache): ParsedInfo {
  const read = readWireJson(data);
  if ('why' in read) return { kind: 'invalid', reason: `INFO reply is ${read.why}` };
  const info = SrvInfoSchema.safeParse(read.value);
  if (!info.success) return { kind: 'invalid', reason: 'INFO reply fails the ADR-32 schema' };
  return instanceFromInfo(info.data, specs);
}

/** Checks a schema-valid INFO against the CAESAR metadata rules. */
function instanceFromInfo(info: SrvInfo, specs: SpecCache): ParsedInfo {
  const service = toolFromServiceName(info.name);
  if (service === undefined) return { kind: 'foreign' };
  const meta = info.metadata ?? {};
  // the callable it serves: the tool itself, or one of its actions (ADR 0092), never another's
  const tool = meta[SRV_METADATA.tool] ?? '';
  if (!CALLABLE_NAME_PATTERN.test(tool) || splitCallable(tool).tool !== service) {
    return invalid(info, `metadata does not name tool ${service} or one of its actions`);
  }
  const host = meta[SRV_METADATA.host];
  const sha = meta[SRV_METADATA.specSha256];
  const specJson = meta[SRV_METADATA.spec];
  const replyKey = meta[SRV_METADATA.replyKey];
  if (replyKey !== undefined && !NKEY_USER_PUBLIC_KEY.test(replyKey)) {
    return invalid(info, 'its reply key is not an NKEY public key');
  }
  const replyDh = meta[SRV_METADATA.replyDh];
  if (replyDh !== undefined && (replyKey === undefined || !REPLY_DH_DECLARATION.test(replyDh))) {
    return invalid(info, 'its reply_dh is not an X25519 key signed by its reply key');
  }
  if (!InstanceIdSchema.safeParse(info.id).success) return invalid(info, 'bad instance id');
  if (!host || host.length > 255) return invalid(info, 'metadata lacks a host');
  if (!sha || specJson === undefined) return invalid(info, 'metadata lacks the spec or its sha');
  const spec = specs.admit(sha, specJson);
  if (typeof spec === 'string') return invalid(info, spec);
  if (spec.name !== tool || spec.version !== info.version) {
    return invalid(info, 'spec name or version disagrees with the service');
  }
  return {
    kind: 'instance',
    instance: {
      id: info.id,
      tool,
      service: serviceName(tool),
      host,
      version: spec.version,
      specSha256: sha,
      spec,
      ...(replyKey === undefined ? {} : { replyKey }),
      ...(replyDh === undefined ? {} : { replyDh }),
      ...(replyDh !== undefined && takesGrantV2(meta[SRV_METADATA.grants])
        ? { grantV2: true }
        : {}),
      ...declaredFields(meta),
    },
  };
}

/** Whether a `caesar.grants` value lists `v2`: a display of what the worker checks. */
function takesGrantV2(declared: string | undefined): boolean {
  return declared !== undefined && declared.length <= 64 && declared.split(',').includes('v2');
}

/**
 * A value the instance declared about itself (`caesar.restarts`, `caesar.capacity`): a
 * malformed one is ignored, never makes the instance invalid (it is a display, not a trust
 * decision), and the reason is kept for the registry's debug line.
 */
function declared<V>(
  text: string | undefined,
  parse: (text: string) => { ok: true; value: V } | { ok: false; problem: string },
): { value?: V; ignored?: string } {
  if (text === undefined) return {};
  const read = parse(text);
  return read.ok ? { value: read.value } : { ignored: read.problem };
}

/** The restarts and capacity the instance declared, and why either was ignored. */
function declaredFields(meta: Record<string, string>): Partial<ToolInstanceInfo> {
  const restarts = declared(meta[SRV_METADATA.restarts], parseWorkerRestarts);
  const capacity = declared(meta[SRV_METADATA.capacity], parseHostCapacity);
  return Object.fromEntries(
    Object.entries({
      restarts: restarts.value,
      restartsIgnored: restarts.ignored,
      capacity: capacity.value,
      capacityIgnored: capacity.ignored,
    }).filter(([, v]) => v !== undefined),
  );
}

function invalid(info: SrvInfo, reason: string): ParsedInfo {
  return { kind: 'invalid', reason: `${info.name}/${info.id}: ${reason}` };
}
