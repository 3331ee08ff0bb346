import { describe, expect, test } from 'vitest';
import type { ChatOptions } from '../../../../src/brain/api/index.js';
import { harness, type Harness } from '../../../unit/brain/http/harness.js';
import { openStream } from '../../../unit/brain/http/sse.js';

/**
 * A streamed turn whose client closes the connection: only a real socket can close, so these
 * listen on loopback and live here, not in test/unit (which opens no listening socket). The
 * rest of the streamed routes are tested with inject in test/unit/http.
 */

/** The options the brain's chat() or complete() got: the stream's signal among them. */
function optionsOf(h: Harness, method: 'chat' | 'complete'): ChatOptions {
  const options = h.brain.callsTo(method)[0]?.args[2] as ChatOptions | undefined;
  if (options === undefined) throw new Error(`${method}() was called without options`);
  return options;
}

describe('POST /v1/chat, streamed: the client leaving', () => {
  test('the client closing the connection aborts the turn, quietly', async () => {
    await using h = await harness();
    h.brain.events = [{ type: 'text', delta: 'thinking' }];
    h.brain.hold = new Promise(() => undefined); // only the abort ends it
    const client = await openStream(h, '/v1/chat', { message: 'hi' });
    await client.until((t) => t.includes('event: text'));
    const { signal } = optionsOf(h, 'chat');
    expect(signal?.aborted).toBe(false);
    const aborted = new Promise((resolve) => signal!.addEventListener('abort', resolve));
    client.close();
    await aborted;
    expect(signal?.aborted).toBe(true);
    await h.app.close(); // resolves: the aborted turn ended its stream
    expect(h.logText()).toContain('the client left');
    expect(h.logText()).not.toContain('request failed');
  });
});

describe('POST /v1/chat/completions, streamed: the client leaving', () => {
  test('the client closing the connection aborts the turn', async () => {
    await using h = await harness();
    h.brain.events = [{ type: 'text', delta: 'thinking' }];
    h.brain.hold = new Promise(() => undefined);
    const client = await openStream(h, '/v1/chat/completions', {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    await client.until((t) => t.includes('thinking'));
    const signal = optionsOf(h, 'complete').signal;
    const aborted = new Promise((resolve) => signal!.addEventListener('abort', resolve));
    client.close();
    await aborted;
    expect(signal?.aborted).toBe(true);
  });
});
