import { z } from 'zod';

/**
 * ADR-32 (NATS Service API) discovery messages, as stock NATS tooling (`nats micro`, the
 * `@nats-io/services` client) sends and reads them. Times in STATS are nanoseconds.
 */
export const SRV_TYPES = {
  ping: 'io.nats.micro.v1.ping_response',
  info: 'io.nats.micro.v1.info_response',
  stats: 'io.nats.micro.v1.stats_response',
} as const;

/** Keys CAESAR puts into a service's metadata (ADR-32 metadata is string -> string). */
export const SRV_METADATA = {
  tool: 'caesar.tool',
  protocol: 'caesar.protocol',
  host: 'caesar.host',
  spec: 'caesar.spec',
  specSha256: 'caesar.spec_sha256',
  /** The public key (`U…`) that signs the instance's replies (ADR 0060). */
  replyKey: 'caesar.reply_key',
  /**
   * The instance's X25519 key and its reply key's signature over it (ADR 0105), for replies
   * bound by a MAC rather than a signature.
   */
  replyDh: 'caesar.reply_dh',
  /**
   * The grant versions the instance checks, comma-separated (`v1,v2`, ADR 0108); absent on a
   * worker from before v2 grants, which the brain sends v1 grants only.
   */
  grants: 'caesar.grants',
  /**
   * The instance's restarts under `caesar up`, compact JSON (`protocol/restarts.ts`, ADR
   * 0070); absent on a first start.
   */
  restarts: 'caesar.restarts',
  /** What the serving host has (vCPUs, memory, GPUs found), compact JSON (`protocol/host-capacity.ts`, ADR 0091). */
  capacity: 'caesar.capacity',
} as const;

const Metadata = z.record(z.string(), z.string());

const Identity = {
  name: z.string(),
  id: z.string(),
  version: z.string(),
  metadata: Metadata.nullish(),
};

export const SrvPingSchema = z.object({ type: z.literal(SRV_TYPES.ping), ...Identity });

const SrvEndpointInfoSchema = z.object({
  name: z.string(),
  subject: z.string(),
  queue_group: z.string().optional(),
  metadata: Metadata.nullish(),
});

export const SrvInfoSchema = z.object({
  type: z.literal(SRV_TYPES.info),
  ...Identity,
  description: z.string().optional(),
  endpoints: z.array(SrvEndpointInfoSchema),
});
export type SrvInfo = z.infer<typeof SrvInfoSchema>;

const SrvEndpointStatsSchema = z.object({
  name: z.string(),
  subject: z.string(),
  queue_group: z.string().optional(),
  num_requests: z.number(),
  num_errors: z.number(),
  last_error: z.string(),
  processing_time: z.number(),
  average_processing_time: z.number(),
  data: z.unknown().optional(),
});

export const SrvStatsSchema = z.object({
  type: z.literal(SRV_TYPES.stats),
  ...Identity,
  started: z.string(),
  endpoints: z.array(SrvEndpointStatsSchema),
});
export type SrvStats = z.infer<typeof SrvStatsSchema>;
