import { describe, expect, test } from 'vitest';
import { HttpApiError } from '../../../../src/brain/http/errors.js';
import {
  CHAT_STREAMS,
  EVENT_STREAMS,
  StreamSlots,
} from '../../../../src/brain/http/stream-slots.js';

/** Slots of one stream kind: the per-token limit beside the global one, and release. */

function refusal(take: () => unknown): HttpApiError {
  try {
    take();
  } catch (err) {
    expect(err).toBeInstanceOf(HttpApiError);
    return err as HttpApiError;
  }
  throw new Error('the slot was not refused');
}

describe('StreamSlots', () => {
  test("a token's slots run out at perToken while other tokens still get theirs", () => {
    const slots = new StreamSlots(EVENT_STREAMS, { max: 8, perToken: 2 });
    slots.take('tablet');
    slots.take('tablet');
    const err = refusal(() => slots.take('tablet'));
    expect(err).toMatchObject({ code: 'too_many_requests', status: 429 });
    expect(err.message).toBe(
      "too many requests: token 'tablet' has 2 event streams open, the most one token may hold: " +
        'api.max_event_streams_per_token (CAESAR_API__MAX_EVENT_STREAMS_PER_TOKEN); ' +
        'close a dashboard tab or `GET /v1/events` client and retry',
    );
    slots.take('laptop');
    expect([slots.open, slots.heldBy('tablet'), slots.heldBy('laptop')]).toEqual([3, 2, 1]);
  });

  test('every token together stops at max, naming the global setting', () => {
    const slots = new StreamSlots(CHAT_STREAMS, { max: 2, perToken: 5 });
    slots.take('a');
    slots.take('b');
    expect(refusal(() => slots.take('c')).message).toBe(
      'too many requests: at most 2 streamed chat turns may be open at once: api.max_chat_streams (CAESAR_API__MAX_CHAT_STREAMS); ' +
        'close a streamed chat and retry',
    );
  });

  test('a released slot is free again; releasing twice frees it once', () => {
    const slots = new StreamSlots(EVENT_STREAMS, { max: 2, perToken: 1 });
    const release = slots.take('tablet');
    slots.take('laptop');
    release();
    release();
    expect([slots.open, slots.heldBy('tablet')]).toEqual([1, 0]);
    slots.take('tablet');
    expect(refusal(() => slots.take('kiosk')).message).toContain('at most 2 event streams');
  });
});
