import { keyAndEnv } from '../../text/index.js';
import { HttpApiError } from './errors.js';

/**
 * Slots of one kind of long-lived response (live audit streams, streamed chat turns): how many
 * may be open at once in all, and how many one API token may hold of them, so that one token
 * cannot lock every other client out (ADR 0063). A refused stream is `429 too_many_requests`
 * before anything runs, naming the limit and the setting that raises it.
 */

/** How many streams of one kind may be open. */
export interface StreamSlotLimits {
  /** Open at once, every token together. */
  readonly max: number;
  /** Open at once for one token (a value above `max` leaves `max` the only limit). */
  readonly perToken: number;
}

/** One kind of stream, as a refusal words it. */
export interface StreamKind {
  /** `event streams`, `streamed chat turns`. */
  readonly noun: string;
  /** The settings of the two limits: `['api', 'max_event_streams']`. */
  readonly maxSetting: readonly string[];
  readonly perTokenSetting: readonly string[];
  /** What the client can close to free one: `a dashboard tab or \`GET /v1/events\` client`. */
  readonly closable: string;
}

export const EVENT_STREAMS: StreamKind = {
  noun: 'event streams',
  maxSetting: ['api', 'max_event_streams'],
  perTokenSetting: ['api', 'max_event_streams_per_token'],
  closable: 'a dashboard tab or `GET /v1/events` client',
};

export const CHAT_STREAMS: StreamKind = {
  noun: 'streamed chat turns',
  maxSetting: ['api', 'max_chat_streams'],
  perTokenSetting: ['api', 'max_chat_streams_per_token'],
  closable: 'a streamed chat',
};

/** Releases a slot; calling it again does nothing. */
export type ReleaseSlot = () => void;

export class StreamSlots {
  #open = 0;
  readonly #byToken = new Map<string, number>();

  constructor(
    private readonly kind: StreamKind,
    private readonly limits: StreamSlotLimits,
  ) {}

  /** Streams open now, every token together. */
  get open(): number {
    return this.#open;
  }

  /** Streams `token` holds now. */
  heldBy(token: string): number {
    return this.#byToken.get(token) ?? 0;
  }

  /**
   * A slot for one stream of `token` (an API token name), released by the function returned.
   * @throws HttpApiError `too_many_requests` when `token` holds its `perToken` already, or
   *   every token together holds `max`; the message names the limit and its setting.
   */
  take(token: string): ReleaseSlot {
    const { kind, limits } = this;
    const held = this.heldBy(token);
    if (held >= limits.perToken) {
      throw new HttpApiError('too_many_requests', {
        why:
          `token '${token}' has ${held} ${kind.noun} open, the most one token may hold: ` +
          keyAndEnv(kind.perTokenSetting),
        next: `close ${kind.closable} and retry`,
      });
    }
    if (this.#open >= limits.max) {
      throw new HttpApiError('too_many_requests', {
        why: `at most ${limits.max} ${kind.noun} may be open at once: ${keyAndEnv(kind.maxSetting)}`,
        next: `close ${kind.closable} and retry`,
      });
    }
    this.#open++;
    this.#byToken.set(token, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#open--;
      const left = this.heldBy(token) - 1;
      if (left > 0) this.#byToken.set(token, left);
      else this.#byToken.delete(token);
    };
  }
}
