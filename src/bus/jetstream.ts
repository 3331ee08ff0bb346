import {
  headers as natsHeaders,
  nuid,
  type Msg,
  type NatsConnection,
  type Subscription,
} from '@nats-io/nats-core';
import { jsApi } from '../protocol/index.js';
import { readJsonValue } from '../text/index.js';
import { errorClass } from '../errors/index.js';

/**
 * The few JetStream calls jobs need (ADR 0098), spoken over a plain NATS connection: create a
 * stream and a durable pull consumer, publish with a publish ack, pull one message, ack,
 * delete a message. Not @nats-io/jetstream: a worker's identity may publish to one consumer's
 * pull subject and receive on one inbox prefix only (least privilege), so every reply comes
 * to an inbox this link owns, under the prefix the permissions allow.
 */

/** JetStream answered an API call with an error: `errCode` is JetStream's own code. */
export const JetStreamApiError = errorClass(
  'jetstream_refused',
  (subject: string, code: number, errCode: number, description: string) => ({
    params: { subject, code, errCode, description },
    fields: { errCode, apiCode: code },
  }),
);
export type JetStreamApiError = InstanceType<typeof JetStreamApiError>;

/** No JetStream answered in time: off, or a clustered one between leaders (ADR 0101). */
export const JetStreamSilent = errorClass(
  'jetstream_silent',
  (subject: string, timeoutMs: number) => ({
    params: { subject, timeoutMs },
  }),
);
export type JetStreamSilent = InstanceType<typeof JetStreamSilent>;

/** How long a pull that found no consumer waits before the next one may go. */
const NO_CONSUMER_PAUSE_MS = 500;

/** How long a JetStream API call or a publish waits for its answer. */
const ANSWER_MS = 5000;

/** JetStream's error code for a stream that exists with another configuration. */
const STREAM_NAME_IN_USE = 10058;

export interface StreamConfig {
  name: string;
  subjects: string[];
  retention: 'limits' | 'workqueue';
  storage: 'file' | 'memory';
  max_msg_size?: number;
  /** Nanoseconds; 0 keeps messages for ever. */
  max_age?: number;
  /** Nanoseconds: messages with the same `Nats-Msg-Id` inside it are stored once. */
  duplicate_window?: number;
  /** Copies in a clustered JetStream (ADR 0101). @default 1 */
  num_replicas?: number;
}

export interface PullConsumerConfig {
  durable_name: string;
  filter_subject?: string;
  /** Nanoseconds without an ack or a progress ack before a delivery is redelivered. */
  ack_wait: number;
  /** -1: unlimited. */
  max_deliver: number;
  /** Deliveries outstanding at once over every puller; -1: unlimited. */
  max_ack_pending?: number;
}

/** One delivery pulled from a consumer, with what its ack subject says. */
export interface Delivery {
  readonly msg: Msg;
  /** 1 on the first delivery, more after a redelivery. */
  readonly attempt: number;
  /** The message's sequence in its stream. */
  readonly streamSeq: number;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

export const ms = (n: number) => Math.round(n * 1_000_000);

export class JetStreamLink {
  readonly #nc: NatsConnection;
  readonly #prefix: string;
  readonly #waiting = new Map<string, (m: Msg) => void>();
  readonly #sub;
  #n = 0;
  #pulls: Subscription | undefined;
  #pulled: ((m: Msg) => void) | undefined;
  /** Ends the pull in flight, or its pause after a 503, at once with no delivery. */
  #endPull: (() => void) | undefined;

  /** `inboxPrefix`: where replies come; the identity must be allowed to subscribe to `<prefix>.>`. */
  constructor(nc: NatsConnection, inboxPrefix: string) {
    this.#nc = nc;
    this.#prefix = `${inboxPrefix}.${nuid.next()}`;
    this.#sub = nc.subscribe(`${this.#prefix}.*`, {
      callback: (err, msg) => {
        if (err) return;
        const take = this.#waiting.get(msg.subject);
        if (take === undefined) return;
        this.#waiting.delete(msg.subject);
        take(msg);
      },
    });
  }

  /**
   * A request whose reply comes to this link's inbox; undefined when none comes in time, or
   * when the server says no one holds the subject (a status reply).
   */
  async request(
    subject: string,
    data: Uint8Array | string,
    timeoutMs: number,
    msgId?: string,
  ): Promise<Msg | undefined> {
    const reply = `${this.#prefix}.${++this.#n}`;
    const got = new Promise<Msg | undefined>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(reply);
        resolve(undefined);
      }, timeoutMs);
      this.#waiting.set(reply, (m) => {
        clearTimeout(timer);
        // a status (503, no responders: no stream or consumer leader holds the subject now,
        // as while a clustered JetStream elects one) is no answer, never an empty ack
        resolve(m.headers?.hasError === true ? undefined : m);
      });
    });
    if (msgId === undefined) {
      this.#nc.publish(subject, data, { reply });
    } else {
      const h = natsHeaders();
      h.set('Nats-Msg-Id', msgId);
      this.#nc.publish(subject, data, { reply, headers: h });
    }
    return got;
  }

  /** A JetStream API call: JSON in, JSON out. @throws JetStreamApiError, or on no answer */
  async api<T = Record<string, unknown>>(subject: string, body: unknown = {}): Promise<T> {
    const m = await this.request(subject, JSON.stringify(body), ANSWER_MS);
    if (m === undefined) throw new JetStreamSilent(subject, ANSWER_MS);
    const value = (readJsonValue(decoder.decode(m.data)) ?? {}) as {
      error?: { code: number; err_code?: number; description: string };
    };
    if (value.error !== undefined) {
      const e = value.error;
      throw new JetStreamApiError(subject, e.code, e.err_code ?? 0, e.description);
    }
    return value as T;
  }

  /** Creates the stream, or updates it when it exists with another configuration. */
  async ensureStream(config: StreamConfig): Promise<void> {
    try {
      await this.api(jsApi.streamCreate(config.name), { num_replicas: 1, ...config });
    } catch (err) {
      if (!(err instanceof JetStreamApiError) || err.errCode !== STREAM_NAME_IN_USE) throw err;
      await this.api(jsApi.streamUpdate(config.name), { num_replicas: 1, ...config });
    }
  }

  /** Creates (or updates) a durable pull consumer with explicit acks. */
  async ensureConsumer(stream: string, config: PullConsumerConfig): Promise<void> {
    await this.api(jsApi.consumerCreate(stream, config.durable_name), {
      stream_name: stream,
      config: { ack_policy: 'explicit', deliver_policy: 'all', ...config },
    });
  }

  /**
   * Publishes into a stream and waits for its ack: the stream sequence. `msgId` makes a
   * repeat inside the stream's duplicate window a no-op.
   */
  async publish(subject: string, body: unknown, msgId?: string): Promise<number> {
    const m = await this.request(subject, JSON.stringify(body), ANSWER_MS, msgId);
    if (m === undefined) throw new JetStreamSilent(subject, ANSWER_MS);
    const ack = (readJsonValue(decoder.decode(m.data)) ?? {}) as {
      seq?: number;
      error?: { code: number; err_code?: number; description: string };
    };
    if (ack.error !== undefined) {
      const e = ack.error;
      throw new JetStreamApiError(subject, e.code, e.err_code ?? 0, e.description);
    }
    return ack.seq ?? 0;
  }

  /**
   * Pulls one message from a durable consumer, waiting up to `expiresMs`; undefined when none
   * came (or the consumer does not exist yet), or when `endPull()` ended the wait. One pull at
   * a time per link: a delivery keeps its stream subject, so it is told from others by the
   * subscription it arrives on.
   */
  async next(stream: string, consumer: string, expiresMs: number): Promise<Delivery | undefined> {
    const inbox = `${this.#prefix}.pull`;
    this.#pulls ??= this.#nc.subscribe(inbox, {
      callback: (err, m) => {
        if (err) return;
        const take = this.#pulled;
        this.#pulled = undefined;
        if (take !== undefined) take(m);
        // a delivery no pull waits for (its pull timed out here first) goes back at once
        else if (m.reply?.startsWith('$JS.ACK.')) this.#nc.publish(m.reply, encoder.encode('-NAK'));
      },
    });
    const got = new Promise<Msg | undefined>((resolve) => {
      const end = () => {
        clearTimeout(timer);
        this.#pulled = undefined;
        this.#endPull = undefined;
        resolve(undefined);
      };
      const timer = setTimeout(end, expiresMs + 1000);
      this.#endPull = end;
      this.#pulled = (m) => {
        clearTimeout(timer);
        this.#endPull = undefined;
        resolve(m);
      };
    });
    const body = JSON.stringify({ batch: 1, expires: ms(expiresMs) });
    this.#nc.publish(jsApi.msgNext(stream, consumer), body, { reply: inbox });
    const m = await got;
    if (m?.headers?.code === 503) {
      // no one holds the consumer now (not made yet, or a clustered JetStream between
      // leaders): said at once, so wait a little rather than pull again in a tight loop
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(expiresMs, NO_CONSUMER_PAUSE_MS));
        this.#endPull = () => {
          clearTimeout(timer);
          this.#endPull = undefined;
          resolve();
        };
      });
      return undefined;
    }
    if (m === undefined || !m.reply?.startsWith('$JS.ACK.')) return undefined;
    // $JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<ts>.<pending>
    const t = m.reply.split('.');
    return { msg: m, attempt: Number(t[4]), streamSeq: Number(t[5]) };
  }

  /** Acks a delivery and waits for the server to confirm it; false when it did not. */
  async ack(d: Delivery): Promise<boolean> {
    const m = await this.request(d.msg.reply!, '+ACK', 5000);
    return m !== undefined;
  }

  /** Acks a delivery. @throws JetStreamSilent when the server did not confirm it */
  async confirmAck(d: Delivery): Promise<void> {
    if (!(await this.ack(d))) throw new JetStreamSilent(d.msg.reply!, ANSWER_MS);
  }

  /** Progress on a delivery: resets its ack wait, so it is not redelivered meanwhile. */
  working(d: Delivery): void {
    this.#nc.publish(d.msg.reply!, encoder.encode('+WPI'));
  }

  /** Gives a delivery back at once, for another puller. */
  nak(d: Delivery): void {
    this.#nc.publish(d.msg.reply!, encoder.encode('-NAK'));
  }

  /** Removes message `seq` from `stream`; false when it was not there (taken or gone). */
  async deleteMessage(stream: string, seq: number): Promise<boolean> {
    try {
      await this.api(jsApi.streamMsgDelete(stream), { seq, no_erase: true });
      return true;
    } catch (err) {
      if (err instanceof JetStreamApiError) return false;
      throw err;
    }
  }

  /**
   * Ends the pull in flight at once, as if it had expired: for a reader that is stopping and
   * would otherwise wait out the pull's `expiresMs`. The server still holds the pull until it
   * expires; a delivery it sends meanwhile is given back (-NAK) while this link is open, and
   * redelivered after its ack wait once the link is closed.
   */
  endPull(): void {
    this.#endPull?.();
  }

  close(): void {
    this.#endPull?.();
    this.#sub.unsubscribe();
    this.#pulls?.unsubscribe();
    this.#waiting.clear();
  }
}
