import type { Msg, NatsConnection, Subscription } from '@nats-io/nats-core';
import {
  DISPATCH_QUEUE_GROUP,
  SRV_METADATA,
  SRV_TYPES,
  SRV_VERBS,
  dispatchSubject,
  preflightSubject,
  serviceName,
  srvSubject,
  type SrvVerb,
  encodeHostCapacity,
  encodeWorkerRestarts,
  type HostCapacity,
  type WorkerRef,
  type WorkerRestarts,
} from '../protocol/index.js';
import type { ToolDefinition } from './define.js';
import type { EndpointStats } from './stats.js';

const encoder = new TextEncoder();

interface ServiceEndpoint {
  name: 'dispatch' | 'preflight';
  subject: string;
  stats: EndpointStats;
  /** Extra figures for STATS `data` (in-flight, queued). */
  data?: () => Record<string, number>;
}

/**
 * One tool instance as an ADR-32 service: answers `$SRV.PING|INFO|STATS` (all services,
 * by name, by name and id) so `nats micro ls` and the `@nats-io/services` client see it.
 * Implemented on the v3 core client (see docs/adr/0003-srv-on-core.md).
 */
export class ToolService {
  readonly name: string;
  readonly started = new Date().toISOString();
  readonly metadata: Record<string, string>;
  readonly #subs: Subscription[] = [];

  /**
   * `replies`: the public key that signs this instance's answers (ADR 0060) and its X25519
   * key's declaration (`caesar.reply_dh`, ADR 0105); `restarts`:
   * its restarts under `caesar up` (ADR 0070), undefined on a first start; `capacity`: what
   * its host has (ADR 0091).
   */
  constructor(
    readonly tool: ToolDefinition,
    readonly worker: WorkerRef,
    replies: { readonly publicKey: string; readonly dhDeclaration: string },
    { restarts, capacity }: { restarts: WorkerRestarts | undefined; capacity: HostCapacity },
    readonly endpoints: ServiceEndpoint[],
  ) {
    this.name = serviceName(tool.spec.name);
    this.metadata = {
      [SRV_METADATA.tool]: tool.spec.name,
      [SRV_METADATA.protocol]: '1',
      [SRV_METADATA.host]: worker.host,
      [SRV_METADATA.spec]: JSON.stringify(tool.spec),
      [SRV_METADATA.specSha256]: tool.specSha256,
      [SRV_METADATA.replyKey]: replies.publicKey,
      [SRV_METADATA.replyDh]: replies.dhDeclaration,
      [SRV_METADATA.grants]: 'v1,v2',
      [SRV_METADATA.capacity]: encodeHostCapacity(capacity),
      ...(restarts === undefined
        ? {}
        : { [SRV_METADATA.restarts]: encodeWorkerRestarts(restarts) }),
    };
  }

  /** Subscribes the nine discovery subjects. */
  listen(nc: NatsConnection): void {
    for (const verb of SRV_VERBS) {
      const respond = (msg: Msg) => {
        msg.respond(encoder.encode(JSON.stringify(this.#answer(verb))));
      };
      for (const subject of [
        srvSubject(verb),
        srvSubject(verb, this.name),
        srvSubject(verb, this.name, this.worker.id),
      ]) {
        this.#subs.push(
          nc.subscribe(subject, {
            callback: (err, msg) => {
              if (!err) respond(msg);
            },
          }),
        );
      }
    }
  }

  /** Subjects whose subscription the server refused (closed once the subscribe was flushed). */
  refused(): string[] {
    return this.#subs.filter((s) => s.isClosed()).map((s) => s.getSubject());
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.#subs.map((s) => s.drain()));
  }

  #identity() {
    return {
      name: this.name,
      id: this.worker.id,
      version: this.tool.spec.version,
      metadata: this.metadata,
    };
  }

  #answer(verb: SrvVerb): unknown {
    switch (verb) {
      case 'PING':
        return { type: SRV_TYPES.ping, ...this.#identity() };
      case 'INFO':
        return {
          type: SRV_TYPES.info,
          ...this.#identity(),
          description: this.tool.spec.description,
          endpoints: this.endpoints.map((e) => ({
            name: e.name,
            subject: e.subject,
            queue_group: DISPATCH_QUEUE_GROUP,
            metadata: null,
          })),
        };
      case 'STATS':
        return {
          type: SRV_TYPES.stats,
          ...this.#identity(),
          started: this.started,
          endpoints: this.endpoints.map((e) => ({
            name: e.name,
            subject: e.subject,
            queue_group: DISPATCH_QUEUE_GROUP,
            num_requests: e.stats.numRequests,
            num_errors: e.stats.numErrors,
            last_error: e.stats.lastError,
            processing_time: e.stats.processingTimeNs,
            average_processing_time: e.stats.averageProcessingTimeNs,
            ...(e.data ? { data: e.data() } : {}),
          })),
        };
    }
  }
}

export function endpointSubjects(tool: string): { dispatch: string; preflight: string } {
  return { dispatch: dispatchSubject(tool), preflight: preflightSubject(tool) };
}
